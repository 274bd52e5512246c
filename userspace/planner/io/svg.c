// SPDX-License-Identifier: GPL-2.0
/*
 * svg.c - a plan as an SVG chart: address (up) against time (right),
 * a panel per core.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define U(x) ((unsigned long long)(x))

/* s as XML text */
static void dp_xml_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 has no control characters, not even escaped */
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\x%02x", (unsigned char)*s);
			else
				fputc(*s, f);
		}
	}
}

/* ---- SVG: address (up) against time (right), a panel per core -------- */

static unsigned hue(const char *s)
{
	unsigned h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h % 360;
}

/*
 * The address axis is piecewise linear: [0, floor) -- the pre-placed
 * tensors, often large weights -- gets the bottom PRE_FRAC of the panel,
 * [floor, top) the rest, so the planned tensors stay readable.
 */
#define PRE_FRAC 0.18

struct yaxis {
	double y0, H;
	uint64_t floor, top;
};

static double ymap(const struct yaxis *a, uint64_t addr)
{
	double pre = a->floor && a->top > a->floor ? PRE_FRAC * a->H : 0;

	if (addr < a->floor)
		return a->y0 + a->H - pre * (double)addr / (double)a->floor;
	if (a->top <= a->floor)
		return a->y0;
	return a->y0 + a->H - pre - (a->H - pre) * (double)(addr - a->floor) /
					(double)(a->top - a->floor);
}

static double area(const struct dp_core_plan *c, const struct dp_plan_tensor *t)
{
	double a = 0;
	uint32_t q;

	for (q = 0; q < t->iv_count; q++)
		a += (double)(c->iv[t->iv_first + q].hi - c->iv[t->iv_first + q].lo + 1);
	return a * (double)t->size;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

int dp_plan_write_svg(const struct dp_plan *p, FILE *f)
{
	return dp_plan_write_svg_max(p, f, 0);
}

/*
 * Downsampling: with max_tensors != 0 and more placed tensors than that,
 * only the max_tensors largest by size x lifetime are drawn (ties in plan
 * order), and the chart says so.
 */
/* The chart's geometry and what is drawn of it. */
struct chart {
	const struct dp_plan *p;
	FILE *f;
	double W, H, L, T, GAP, total_h;
	size_t max_rects, rects, placed, drawn, ties;
	double thr;		/* size x lifetime drawn from (-1: all) */
};

/* Downsampling: the size x lifetime of the max_tensors-th largest, and
 * how many of that value are drawn.  0, or -ENOMEM. */
static int threshold(struct chart *ch, size_t max_tensors)
{
	const struct dp_plan *p = ch->p;
	size_t i = 0, above = 0;
	uint32_t ci, k;
	double *a;

	if (!max_tensors || ch->placed <= max_tensors)
		return 0;
	a = dp_realloc_array(NULL, ch->placed, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++)
			if (p->core[ci].t[k].placed)
				a[i++] = area(&p->core[ci], &p->core[ci].t[k]);
	qsort(a, ch->placed, sizeof(*a), cmp_desc);
	ch->thr = a[max_tensors - 1];
	for (i = 0; i < ch->placed && a[i] > ch->thr; i++)
		above++;
	ch->ties = max_tensors - above;
	free(a);
	return 0;
}

static void chart_head(const struct chart *ch)
{
	FILE *f = ch->f;
	double L = ch->L, W = ch->W;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"11\">\n",
		L + W + 30, ch->total_h, L + W + 30, ch->total_h);
	fprintf(f, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"1.5\" stroke-opacity=\"0.45\"/></pattern></defs>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">dramplan: ", L);
	dp_xml_str(f, ch->p->model);
	fprintf(f, " -- DRAM address (up) against instruction time (right)</text>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"38\">one rectangle per tensor interval; red outline + hatching = shared, grey = pre-placed (below the floor, axis compressed), yellow band = CC region</text>\n", L);
}

/* One interval of tensor t: its rectangle, its name when it fits, the
 * hatching when shared. */
static void draw_interval(const struct chart *ch, const struct dp_plan_tensor *t,
			  const struct dp_iv *iv, double sx, double y, double h)
{
	FILE *f = ch->f;
	double x = ch->L + iv->lo * sx, w = (iv->hi - iv->lo + 1) * sx;
	char fill[32];

	if (t->region == DP_REG_PRE)
		snprintf(fill, sizeof(fill), "#bbb");
	else
		snprintf(fill, sizeof(fill), "hsl(%u,60%%,72%%)", hue(t->name));
	fprintf(f, "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"><title>",
		dp_region_name(t->region), t->shared ? " shared" : "",
		x, y, w < 0.5 ? 0.5 : w, h, fill,
		t->shared ? "#b00" : "#333",
		t->shared ? "1.5" : "0.4");
	dp_xml_str(f, t->name);
	fprintf(f, " [0x%llx, 0x%llx) size %llu t=[%llu, %llu] %s%s</title></rect>\n",
		U(t->addr), U(t->addr + t->size), U(t->size),
		U(iv->lo), U(iv->hi), dp_region_name(t->region),
		t->shared ? " shared" : "");
	if (w > 7.0 * (strlen(t->name) + 1) && h > 13) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" pointer-events=\"none\">",
			x + 3, y + 12);
		dp_xml_str(f, t->name);
		fprintf(f, "</text>\n");
	}
	if (t->shared)
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"url(#hatch)\" pointer-events=\"none\"/>\n",
			x, y, w < 0.5 ? 0.5 : w, h);
}

/* Core ci's frame: its title, the CC band, the floor, the axes' ends. */
static void core_frame(const struct chart *ch, uint32_t ci,
		       const struct yaxis *ax, uint64_t amax, uint64_t tmax)
{
	const struct dp_plan *p = ch->p;
	const struct dp_core_plan *c = &p->core[ci];
	FILE *f = ch->f;
	double L = ch->L, W = ch->W, H = ch->H, y0 = ax->y0;

	fprintf(f, "<g id=\"core%u\">\n<text x=\"%.0f\" y=\"%.1f\" font-size=\"13\">core %u: ",
		ci, L, y0 - 6, ci);
	dp_xml_str(f, c->function);
	fprintf(f, " (footprint 0x%llx, peak %llu, lower bound %llu, with the CC buffer)</text>\n",
		U(c->footprint), U(c->peak), U(c->lower_bound));
	fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#888\"/>\n",
		L, y0, W, H);
	if (p->cc_size)
		fprintf(f, "<rect class=\"cc\" x=\"%.0f\" y=\"%.2f\" width=\"%.0f\" height=\"%.2f\" fill=\"#fff3b0\"><title>CC region [0x%llx, 0x%llx)</title></rect><text x=\"4\" y=\"%.2f\" fill=\"#996\">CC end 0x%llx</text>\n",
			L, ymap(ax, p->cc_base + p->cc_size), W,
			ymap(ax, p->cc_base) - ymap(ax, p->cc_base + p->cc_size),
			U(p->cc_base), U(p->cc_base + p->cc_size),
			ymap(ax, p->cc_base + p->cc_size) + 4,
			U(p->cc_base + p->cc_size));
	if (p->floor)
		fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/><text x=\"4\" y=\"%.2f\" fill=\"#c00\">floor 0x%llx</text>\n",
			L, L + W, ymap(ax, p->floor), ymap(ax, p->floor),
			ymap(ax, p->floor) + 4, U(p->floor));
	fprintf(f, "<text x=\"4\" y=\"%.1f\">0x%llx</text><text x=\"4\" y=\"%.1f\">0</text>\n",
		y0 + 10, U(amax), y0 + H);
	fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">t=0</text><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">t=%llu</text>\n",
		L, y0 + H + 14, L + W, y0 + H + 14, U(tmax));
}

/* Core ci: its frame, then a rectangle per interval of each tensor drawn. */
static void draw_core(struct chart *ch, uint32_t ci)
{
	const struct dp_plan *p = ch->p;
	const struct dp_core_plan *c = &p->core[ci];
	double y0 = ch->T + ci * (ch->H + ch->GAP), sx;
	uint64_t tmax = 1, amax = 1;
	struct yaxis ax;
	uint32_t k, q;

	for (k = 0; k < c->n; k++) {
		const struct dp_plan_tensor *t = &c->t[k];

		if (t->placed && t->addr + t->size > amax)
			amax = t->addr + t->size;
		for (q = 0; q < t->iv_count; q++)
			if (c->iv[t->iv_first + q].hi + 1 > tmax)
				tmax = c->iv[t->iv_first + q].hi + 1;
	}
	if (p->cc_size && p->cc_base + p->cc_size > amax)
		amax = p->cc_base + p->cc_size;
	if (amax <= p->floor)
		amax = p->floor + DP_PAGE;
	sx = ch->W / (double)tmax;
	ax = (struct yaxis){ y0, ch->H, p->floor, amax };
	core_frame(ch, ci, &ax, amax, tmax);
	for (k = 0; k < c->n && ch->rects < ch->max_rects; k++) {
		const struct dp_plan_tensor *t = &c->t[k];
		double y, h;

		if (!t->placed)
			continue;
		if (ch->thr >= 0) {
			double ar = area(c, t);

			if (ar < ch->thr || (ar == ch->thr && !ch->ties))
				continue;
			if (ar == ch->thr)
				ch->ties--;
		}
		ch->drawn++;
		y = ymap(&ax, t->addr + t->size);
		h = ymap(&ax, t->addr) - y;
		if (h < 0.5)
			h = 0.5;
		for (q = 0; q < t->iv_count && ch->rects < ch->max_rects;
		     q++, ch->rects++)
			draw_interval(ch, t, &c->iv[t->iv_first + q], sx, y, h);
	}
	fprintf(ch->f, "</g>\n");
}

int dp_plan_write_svg_max(const struct dp_plan *p, FILE *f, size_t max_tensors)
{
	struct chart ch = { .p = p, .f = f, .W = 960, .H = 420, .L = 110,
			    .T = 70, .GAP = 70, .max_rects = 200000,
			    .thr = -1 };
	uint32_t ci, k;

	ch.total_h = ch.T + p->ncores * (ch.H + ch.GAP) + 20;
	for (ci = 0; ci < p->ncores; ci++)
		for (k = 0; k < p->core[ci].n; k++)
			ch.placed += p->core[ci].t[k].placed;
	if (threshold(&ch, max_tensors))
		return -ENOMEM;
	chart_head(&ch);
	for (ci = 0; ci < p->ncores; ci++)
		draw_core(&ch, ci);
	if (ch.thr >= 0)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#c00\">(downsampled: %zu of %zu tensors drawn, the largest by size x lifetime)</text>\n",
			ch.L, 54.0, ch.drawn, ch.placed);
	if (ch.rects >= ch.max_rects)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#c00\">(chart truncated at %zu rectangles)</text>\n",
			ch.L, ch.total_h - 6, ch.max_rects);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
