#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The DMA engines' lanes over modeled time, from a trace of the xmemsim
# tracepoints (events/xmemsim/xmemsim_dma_end: one line per transfer).
#
#   scripts/dma-timeline.sh [--svg] [--per-core N] [TRACE]   (TRACE default: stdin)
#
# Default output: Chrome/Perfetto trace-event JSON (open it in
# ui.perfetto.dev or chrome://tracing): one complete event ("ph":"X") per
# transfer, on a thread per engine of a process per pid, times in us of
# modeled time. --svg: the same as an SVG picture, a lane per engine
# labelled with its core, a time axis in us of modeled time from the
# first transfer's start, transfers coloured by queue and labelled by
# ticket. Engines are numbered core-major: engine E is core E / N's
# engine E % N, N the module's dma_engines (--per-core N; default: read
# from /sys/module/xmemsim/parameters/dma_engines, else 2). A trace with
# no transfer is an error (exit 1). Plain POSIX awk: it runs in the test
# VM's busybox too.
set -eu

fmt=json
per=""
while [ $# -gt 0 ]; do
	case "$1" in
	--svg) fmt=svg; shift ;;
	--per-core) per=${2:-}; shift 2 || { echo "dma-timeline.sh: --per-core takes N" >&2; exit 2; } ;;
	*) break ;;
	esac
done
usage="usage: dma-timeline.sh [--svg] [--per-core N] [TRACE]"
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
[ -n "$per" ] || per=$(cat /sys/module/xmemsim/parameters/dma_engines 2>/dev/null || echo 2)
case "$per" in
''|*[!0-9]*|0) echo "dma-timeline.sh: --per-core: '$per' is not a positive number" >&2; exit 2 ;;
esac
src=${1:-/dev/stdin}

awk -v fmt="$fmt" -v per="$per" -v src="$src" '
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
	if (!n) {
		printf "dma-timeline.sh: %s: no xmemsim_dma_end event (enable events/xmemsim/xmemsim_dma_end before the run)\n", src > "/dev/stderr"
		exit 1
	}
	if (fmt == "json") {
		printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
		for (i = 1; i <= n; i++)	# each lane named by its core
			if (!((pid[i], eng[i]) in named)) {
				named[pid[i], eng[i]] = 1
				printf "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%s,\"tid\":%s,\"args\":{\"name\":\"core %d engine %s\"}},", \
					pid[i], eng[i], int(eng[i] / per), eng[i]
			}
		for (i = 1; i <= n; i++)
			printf "%s{\"name\":\"ticket %s q%s %s B\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%s,\"tid\":%s}", \
				(i > 1 ? "," : ""), tk[i], q[i], len[i], \
				(st[i] - t0) / 1000, (en[i] - st[i]) / 1000, pid[i], eng[i]
		printf "]}\n"
		exit 0
	}
	split("#4e79a7 #f28e2b #59a14f #e15759 #76b7b2 #edc948 #b07aa1 #ff9da7", col, " ")
	w = 900; span = t1 > t0 ? t1 - t0 : 1
	ax = 40 + 30 * (emax + 1) + 4	# the time axis, below the lanes
	h = ax + 40
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", w + 130, h
	printf "<text x=\"10\" y=\"18\">DMA engines over modeled time: %d transfers, %.3f us</text>\n", n, span / 1000
	for (e = 0; e <= emax; e++)
		printf "<text x=\"10\" y=\"%d\">core %d engine %d</text>\n", 55 + 30 * e, int(e / per), e
	# ticks at 1, 2 or 5 x 10^k us, at most ten over the span (no log():
	# busybox awk may lack math)
	us = span / 1000
	for (step = 0.001; us / step > 10; m++)
		step *= m % 3 == 1 ? 2.5 : 2
	printf "<line class=\"axis\" x1=\"110\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", ax, 110 + w, ax
	for (k = 0; k * step <= us * 1.0000001; k++) {
		x = 110 + k * step * 1000 * w / span
		printf "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", x, ax, x, ax + 5
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, ax + 17, k * step
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">us of modeled time from the first start</text>\n", 110 + w, ax + 32
	for (i = 1; i <= n; i++) {
		x = 110 + (st[i] - t0) * w / span; rw = (en[i] - st[i]) * w / span
		if (rw < 1) rw = 1
		printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"22\" fill=\"%s\" stroke=\"#333\"><title>ticket %s queue %s %s B [%d, %d) ns</title></rect>\n", \
			x, 40 + 30 * eng[i], rw, col[q[i] % 8 + 1], tk[i], q[i], len[i], st[i], en[i]
		if (rw > 24)
			printf "<text x=\"%.1f\" y=\"%d\" fill=\"#fff\">%s</text>\n", x + 3, 55 + 30 * eng[i], tk[i]
	}
	printf "</svg>\n"
}' "$src"
