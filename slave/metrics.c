/*
 * metrics.c - names and units of enum ips2_metric, as tables and the
 * command line show them.
 */
#include <string.h>

#include "ips2_reductions.h"

static const struct {
    const char *name, *unit;
} metrics[IPS2_M_COUNT] = {
    [IPS2_M_CPU] = {"cpu", "ns"},
    [IPS2_M_WALL] = {"wall", "ns"},
    [IPS2_M_CALLS] = {"calls", ""},
    [IPS2_M_SYNC_WAIT] = {"sync_wait", "ns"},
    [IPS2_M_SPIN] = {"spin", "ns"},
    [IPS2_M_MSGS_SENT] = {"msgs_sent", ""},
    [IPS2_M_MSGS_RECV] = {"msgs_recv", ""},
    [IPS2_M_BYTES_SENT] = {"bytes_sent", "bytes"},
    [IPS2_M_BYTES_RECV] = {"bytes_recv", "bytes"},
    [IPS2_M_MSG_WAIT] = {"msg_wait", "ns"},
    [IPS2_M_IO_TIME] = {"io_time", "ns"},
    [IPS2_M_IO_OPS] = {"io_ops", ""},
    [IPS2_M_IO_BYTES] = {"io_bytes", "bytes"},
    [IPS2_M_SEEK_TIME] = {"seek_time", "ns"},
    [IPS2_M_PAGE_FAULTS] = {"page_faults", ""},
    [IPS2_M_CTX_SWITCHES] = {"ctx_switches", ""},
    [IPS2_M_MINOR_FAULTS] = {"minor_faults", ""},
    [IPS2_M_MAJOR_FAULTS] = {"major_faults", ""},
    [IPS2_M_CTX_VOL] = {"ctx_switches_vol", ""},
    [IPS2_M_CTX_INVOL] = {"ctx_switches_invol", ""},
    [IPS2_M_INSTRUCTIONS] = {"instructions", ""},
    [IPS2_M_CYCLES] = {"cycles", ""},
};

const char *ips2_metric_name(unsigned metric)
{
    return metric < IPS2_M_COUNT ? metrics[metric].name : NULL;
}

const char *ips2_metric_unit(unsigned metric)
{
    return metric < IPS2_M_COUNT ? metrics[metric].unit : NULL;
}

int ips2_metric_by_name(const char *name)
{
    for (unsigned m = 0; name && m < IPS2_M_COUNT; m++)
        if (strcmp(metrics[m].name, name) == 0)
            return (int)m;
    return -1;
}
