/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shape every KUnit suite of xmemsim_test has: its cases, the suite,
 * and its registration, in one macro.
 */
#ifndef XMEMSIM_TEST_SUITE_H
#define XMEMSIM_TEST_SUITE_H

#include <kunit/test.h>

/*
 * XMEMSIM_SUITE() - define and register the KUnit suite @_id##_suite,
 * named @_name, of the KUNIT_CASE()s that follow (@_id##_cases); @_init
 * and @_exit (or NULL) run around each case.
 */
#define XMEMSIM_SUITE(_id, _name, _init, _exit, ...)			\
	static struct kunit_case _id##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite _id##_suite = {			\
		.name = _name,						\
		.init = _init,						\
		.exit = _exit,						\
		.test_cases = _id##_cases,				\
	};								\
	kunit_test_suite(_id##_suite)

#endif /* XMEMSIM_TEST_SUITE_H */
