/*
 * locusroute.c - a small LocusRoute (the thesis's Ch. 4 VLSI standard-cell
 * router) for the search workload locusroute.tcl.  route_wires() routes W
 * wires over a cost grid: for every wire it tries each candidate
 * two-bend route, and for every cell along a route calls cell_cost() and
 * is_blocked(), procedures of a few instructions that both look the cell
 * up with cell_at(); the best route's cells
 * are then charged in the grid (occupy()).  So the program makes millions
 * of procedure calls a second, and tracing each call costs more than the
 * call's own work, which is what the thesis's LocusRoute ran into.  The
 * decoy: read_netlist() computes the wires' ends once at the start.
 *
 *   locusroute -wires W -grid G ?-seconds S?
 *
 * The wires are routed again, pass after pass, until S seconds of wall
 * time have gone (at least one pass), so that the search has as many
 * samples to decide on however busy the machine is.
 * Truth: instBottleneck, the procedures that cost most to trace being
 * cell_at, cell_cost and is_blocked.  Exit status 0, 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

#define MAXGRID 256

struct wire {
    int x0, y0, x1, y1;
};

static unsigned char grid_cost[MAXGRID][MAXGRID];
static int grid = 64;

__attribute__((noinline)) static unsigned char *cell_at(int x, int y)
{
    return &grid_cost[y][x];
}

__attribute__((noinline)) static int cell_cost(int x, int y)
{
    return *cell_at(x, y) + 1;
}

__attribute__((noinline)) static int is_blocked(int x, int y)
{
    return *cell_at(x, y) > 250;
}

__attribute__((noinline)) static void occupy(int x, int y)
{
    if (grid_cost[y][x] < 255)
        grid_cost[y][x]++;
}

/* The cost of the route from (x0,y0) to (x1,y1) that turns at column xm:
 * along y0 to xm, down column xm, along y1 to x1. */
static int route_cost(const struct wire *w, int xm, int charge)
{
    int cost = 0;
    int step = xm >= w->x0 ? 1 : -1;
    for (int x = w->x0; x != xm; x += step) {
        if (charge)
            occupy(x, w->y0);
        else
            cost += is_blocked(x, w->y0) ? 1000 : cell_cost(x, w->y0);
    }
    step = w->y1 >= w->y0 ? 1 : -1;
    for (int y = w->y0; y != w->y1; y += step) {
        if (charge)
            occupy(xm, y);
        else
            cost += is_blocked(xm, y) ? 1000 : cell_cost(xm, y);
    }
    step = w->x1 >= xm ? 1 : -1;
    for (int x = xm; x != w->x1; x += step) {
        if (charge)
            occupy(x, w->y1);
        else
            cost += is_blocked(x, w->y1) ? 1000 : cell_cost(x, w->y1);
    }
    return cost;
}

__attribute__((noinline)) static void read_netlist(struct wire *wires, int n)
{
    unsigned s = 12345;
    burn_cpu(100.0);
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        wires[i].x0 = (int)(s >> 8) % grid;
        s = s * 1103515245u + 12345u;
        wires[i].y0 = (int)(s >> 8) % grid;
        s = s * 1103515245u + 12345u;
        wires[i].x1 = (int)(s >> 8) % grid;
        s = s * 1103515245u + 12345u;
        wires[i].y1 = (int)(s >> 8) % grid;
    }
}

__attribute__((noinline)) static long route_wires(const struct wire *wires, int n)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int best = -1, best_x = wires[i].x0;
        for (int xm = 0; xm < grid; xm += 4) {
            int c = route_cost(&wires[i], xm, 0);
            if (best < 0 || c < best) {
                best = c;
                best_x = xm;
            }
        }
        route_cost(&wires[i], best_x, 1);
        total += best;
    }
    return total;
}

int main(int argc, char **argv)
{
    int nwires = 1000;
    double seconds = 0;
    const struct opt opts[] = {
        {"-wires", OPT_INT, &nwires},
        {"-grid", OPT_INT, &grid},
        {"-seconds", OPT_DOUBLE, &seconds},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || nwires < 1 || grid < 8 || grid > MAXGRID ||
        seconds < 0) {
        fprintf(stderr, "usage: locusroute -wires W -grid G (8-%d) ?-seconds S?\n", MAXGRID);
        return 2;
    }
    double deadline = wall_s() + seconds;
    struct wire *wires = malloc((size_t)nwires * sizeof *wires);
    if (wires == NULL)
        return 1;
    read_netlist(wires, nwires);
    long cost = route_wires(wires, nwires);
    int passes = 1;
    for (; wall_s() < deadline; passes++)
        route_wires(wires, nwires);
    printf("locusroute: %d wires on a %dx%d grid, cost %ld, %d passes\n", nwires, grid, grid, cost,
           passes);
    free(wires);
    return 0;
}
