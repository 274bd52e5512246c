#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The DMA engines' lanes over modeled time, from a trace of the xmemsim
# tracepoints (events/xmemsim/xmemsim_dma_end: one line per transfer).
#
#   scripts/dma-timeline.sh [--svg] [TRACE]   (TRACE default: stdin)
#
# Default output: Chrome/Perfetto trace-event JSON (open it in
# ui.perfetto.dev or chrome://tracing): one complete event ("ph":"X") per
# transfer, on a thread per engine of a process per pid, times in us of
# modeled time. --svg: the same as an SVG picture, a lane per engine,
# transfers coloured by queue and labelled by ticket. Plain POSIX awk:
# it runs in the test VM's busybox too.
set -eu

fmt=json
if [ "${1:-}" = --svg ]; then
	fmt=svg
	shift
fi
[ $# -le 1 ] || { echo "usage: dma-timeline.sh [--svg] [TRACE]" >&2; exit 2; }

awk -v fmt="$fmt" '
function field(name,    i, kv) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
/xmemsim_dma_end:/ {
	n++
	pid[n] = field("pid"); tk[n] = field("ticket")
	eng[n] = field("engine"); q[n] = field("queue")
	len[n] = field("len"); st[n] = field("start_ns") + 0
	en[n] = field("end_ns") + 0
	if (n == 1 || st[n] < t0) t0 = st[n]
	if (n == 1 || en[n] > t1) t1 = en[n]
	if (eng[n] + 0 > emax) emax = eng[n] + 0
}
END {
	if (fmt == "json") {
		printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
		for (i = 1; i <= n; i++)
			printf "%s{\"name\":\"ticket %s q%s %s B\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%s,\"tid\":%s}", \
				(i > 1 ? "," : ""), tk[i], q[i], len[i], \
				(st[i] - t0) / 1000, (en[i] - st[i]) / 1000, pid[i], eng[i]
		printf "]}\n"
		exit 0
	}
	split("#4e79a7 #f28e2b #59a14f #e15759 #76b7b2 #edc948 #b07aa1 #ff9da7", col, " ")
	w = 900; span = t1 > t0 ? t1 - t0 : 1
	h = 60 + 30 * (emax + 1)
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", w + 100, h
	printf "<text x=\"10\" y=\"18\">DMA engines over modeled time: %d transfers, %.3f us</text>\n", n, span / 1000
	for (e = 0; e <= emax; e++)
		printf "<text x=\"10\" y=\"%d\">engine %d</text>\n", 55 + 30 * e, e
	for (i = 1; i <= n; i++) {
		x = 80 + (st[i] - t0) * w / span; rw = (en[i] - st[i]) * w / span
		if (rw < 1) rw = 1
		printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"22\" fill=\"%s\" stroke=\"#333\"><title>ticket %s queue %s %s B [%d, %d) ns</title></rect>\n", \
			x, 40 + 30 * eng[i], rw, col[q[i] % 8 + 1], tk[i], q[i], len[i], st[i], en[i]
		if (rw > 24)
			printf "<text x=\"%.1f\" y=\"%d\" fill=\"#fff\">%s</text>\n", x + 3, 55 + 30 * eng[i], tk[i]
	}
	printf "</svg>\n"
}' "${1:-/dev/stdin}"
