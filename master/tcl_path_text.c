/*
 * tcl_path_text.c - a critical path's segments written to a channel as
 * they are formatted, for `$s cp-path ... -write CHAN`.
 *
 * A server's path has hundreds of thousands of segments.  As a Tcl table
 * (a list of rows of cells) and then through format.tcl's text layout,
 * 176,000 of them took 10 s and 700 MB; written from the answer here, two
 * passes over its rows (the widths, then the lines) cost a few percent of
 * that and no memory beyond the answer's.  The text is the one
 * ips2::format::table gives the same rows (format.tcl's Text and Csv):
 *
 *   text  a header line ("from (ms)": ns shown as ms with three decimals),
 *         a line of dashes, one line per row; columns two spaces apart,
 *         padded to their widest cell, right-aligned when every cell is a
 *         number (or empty), lines trimmed on the right; "(no rows)" alone
 *         when there is none; a newline or tab in a cell shown as \n, \t;
 *   csv   "name (unit)" headers, raw values, a cell quoted ("" for ") when
 *         it holds a comma, a quote, CR or LF (tcllib's csv::join).
 *
 * A CPU segment's "what" is its procedures as a Tcl list (Tcl_Merge), as
 * the table's cell would be.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcl_cpa.h"

enum { NCOLS = 7 };

static const struct column {
    const char *name;
    bool ns; /* a time in ns: ms in text */
} columns[NCOLS] = {
    {"kind", false},  {"thread", false}, {"from", true},        {"to", true},
    {"length", true}, {"what", false},   {"procedures", false},
};

/* One row's cells as text (ns columns in ms unless csv); what is the
 * Tcl_Merge'd list, owned by the caller. */
struct cells {
    const char *v[NCOLS];
    char num[4][32];
    char *what;
};

static void row_cells(const struct cpa_segment_row *g, bool csv, struct cells *c)
{
    const int64_t t[3] = {g->from, g->to, g->length};
    c->v[0] = g->kind;
    c->v[1] = g->thread ? g->thread : "";
    for (int i = 0; i < 3; i++) {
        if (csv)
            snprintf(c->num[i], sizeof c->num[i], "%lld", (long long)t[i]);
        else
            snprintf(c->num[i], sizeof c->num[i], "%.3f", (double)t[i] / 1e6);
        c->v[2 + i] = c->num[i];
    }
    c->what = NULL;
    if (strcmp(g->kind, "cpu") == 0)
        c->v[5] = c->what = Tcl_Merge((Tcl_Size)g->nwhat, (const char *const *)g->what);
    else
        c->v[5] = g->nwhat ? g->what[0] : "";
    snprintf(c->num[3], sizeof c->num[3], "%zu", g->nprocs);
    c->v[6] = c->num[3];
}

static void free_cells(struct cells *c)
{
    if (c->what != NULL)
        Tcl_Free(c->what);
}

/* format.tcl's IsNumber: [-+]?(digits[.digits*] | .digits)([eE][-+]?digits)? */
static bool is_number(const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    size_t lead = strspn(p, "0123456789"), frac = 0;
    p += lead;
    if (*p == '.') {
        frac = strspn(p + 1, "0123456789");
        p += 1 + frac;
    }
    if (lead == 0 && frac == 0)
        return false;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '-' || p[1] == '+');
        size_t exp = strspn(p, "0123456789");
        if (exp == 0)
            return false;
        p += exp;
    }
    return *p == '\0';
}

/* A cell's text length as shown: \n and \t take two characters. */
static size_t shown_length(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += (*s == '\n' || *s == '\t') ? 2 : ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void put_shown(Tcl_DString *line, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        if (*s != '\n' && *s != '\t')
            continue;
        Tcl_DStringAppend(line, run, (Tcl_Size)(s - run));
        Tcl_DStringAppend(line, *s == '\n' ? "\\n" : "\\t", 2);
        run = s + 1;
    }
    Tcl_DStringAppend(line, run, (Tcl_Size)(s - run));
}

static void pad(Tcl_DString *line, size_t n)
{
    static const char spaces[] = "                                ";
    for (; n > 0; n -= n < 32 ? n : 32)
        Tcl_DStringAppend(line, spaces, (Tcl_Size)(n < 32 ? n : 32));
}

/* One text line of cells, as format.tcl's Line. */
static int put_line(Tcl_Channel chan, Tcl_DString *line, const char *const *v, const size_t *width,
                    const bool *right)
{
    Tcl_DStringSetLength(line, 0);
    for (int i = 0; i < NCOLS; i++) {
        size_t n = shown_length(v[i]), gap = width[i] > n ? width[i] - n : 0;
        if (i > 0)
            Tcl_DStringAppend(line, "  ", 2);
        if (right[i])
            pad(line, gap);
        put_shown(line, v[i]);
        if (!right[i])
            pad(line, gap);
    }
    Tcl_Size len = Tcl_DStringLength(line);
    const char *s = Tcl_DStringValue(line);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    Tcl_DStringSetLength(line, len);
    Tcl_DStringAppend(line, "\n", 1);
    return Tcl_WriteChars(chan, Tcl_DStringValue(line), Tcl_DStringLength(line)) < 0 ? TCL_ERROR
                                                                                     : TCL_OK;
}

static int write_text(Tcl_Channel chan, const struct cpa_answer *a)
{
    char head[NCOLS][32];
    const char *names[NCOLS], *dashes[NCOLS];
    size_t width[NCOLS];
    bool right[NCOLS];
    for (int i = 0; i < NCOLS; i++) {
        snprintf(head[i], sizeof head[i], columns[i].ns ? "%s (ms)" : "%s", columns[i].name);
        names[i] = head[i];
        width[i] = strlen(head[i]);
        right[i] = a->nsegments > 0 && i != 1; /* a thread is a name (format.tcl's Names) */
    }
    struct cells c;
    for (size_t r = 0; r < a->nsegments; r++) {
        row_cells(&a->segments[r], false, &c);
        for (int i = 0; i < NCOLS; i++) {
            size_t n = shown_length(c.v[i]);
            width[i] = n > width[i] ? n : width[i];
            if (right[i] && c.v[i][0] != '\0' && !is_number(c.v[i]))
                right[i] = false;
        }
        free_cells(&c);
    }
    char *dash = malloc(4096);
    if (dash == NULL)
        return TCL_ERROR;
    memset(dash, '-', 4095);
    dash[4095] = '\0';
    for (int i = 0; i < NCOLS; i++)
        dashes[i] = dash + 4095 - (width[i] < 4095 ? width[i] : 4095);
    Tcl_DString line;
    Tcl_DStringInit(&line);
    int rc = put_line(chan, &line, names, width, right);
    if (rc == TCL_OK)
        rc = put_line(chan, &line, dashes, width, right);
    for (size_t r = 0; rc == TCL_OK && r < a->nsegments; r++) {
        row_cells(&a->segments[r], false, &c);
        rc = put_line(chan, &line, c.v, width, right);
        free_cells(&c);
    }
    if (rc == TCL_OK && a->nsegments == 0 && Tcl_WriteChars(chan, "(no rows)\n", -1) < 0)
        rc = TCL_ERROR;
    Tcl_DStringFree(&line);
    free(dash);
    return rc;
}

static void put_csv(Tcl_DString *line, const char *v)
{
    if (strpbrk(v, ",\"\r\n") == NULL) {
        Tcl_DStringAppend(line, v, -1);
        return;
    }
    Tcl_DStringAppend(line, "\"", 1);
    for (const char *q; (q = strchr(v, '"')) != NULL; v = q + 1) {
        Tcl_DStringAppend(line, v, (Tcl_Size)(q - v));
        Tcl_DStringAppend(line, "\"\"", 2);
    }
    Tcl_DStringAppend(line, v, -1);
    Tcl_DStringAppend(line, "\"", 1);
}

static int write_csv(Tcl_Channel chan, const struct cpa_answer *a)
{
    Tcl_DString line;
    Tcl_DStringInit(&line);
    for (int i = 0; i < NCOLS; i++) {
        char head[32];
        snprintf(head, sizeof head, columns[i].ns ? "%s (ns)" : "%s", columns[i].name);
        if (i > 0)
            Tcl_DStringAppend(&line, ",", 1);
        put_csv(&line, head);
    }
    Tcl_DStringAppend(&line, "\n", 1);
    int rc = Tcl_WriteChars(chan, Tcl_DStringValue(&line), -1) < 0 ? TCL_ERROR : TCL_OK;
    struct cells c;
    for (size_t r = 0; rc == TCL_OK && r < a->nsegments; r++) {
        row_cells(&a->segments[r], true, &c);
        Tcl_DStringSetLength(&line, 0);
        for (int i = 0; i < NCOLS; i++) {
            if (i > 0)
                Tcl_DStringAppend(&line, ",", 1);
            put_csv(&line, c.v[i]);
        }
        Tcl_DStringAppend(&line, "\n", 1);
        free_cells(&c);
        rc = Tcl_WriteChars(chan, Tcl_DStringValue(&line), Tcl_DStringLength(&line)) < 0 ? TCL_ERROR
                                                                                         : TCL_OK;
    }
    Tcl_DStringFree(&line);
    return rc;
}

int Ips2CpaWritePath(Tcl_Interp *interp, Tcl_Channel chan, const struct cpa_answer *a, bool csv)
{
    if ((csv ? write_csv(chan, a) : write_text(chan, a)) == TCL_OK)
        return TCL_OK;
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("cannot write the path: %s", Tcl_PosixError(interp)));
    return TCL_ERROR;
}
