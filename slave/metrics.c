/*
 * metrics.c - names, units and descriptions of enum ips2_metric, as
 * tables, the command line and the GUI show them.
 */
#include <string.h>

#include "ips2_reductions.h"

static const struct {
    const char *name, *unit, *description;
} metrics[IPS2_M_COUNT] = {
    [IPS2_M_CPU] = {"cpu", "ns", "process (CPU) time"},
    [IPS2_M_WALL] = {"wall", "ns", "elapsed (wall-clock) time"},
    [IPS2_M_CALLS] = {"calls", "", "procedure calls"},
    [IPS2_M_SYNC_WAIT] = {"sync_wait", "ns",
                          "waiting for locks, barriers, semaphores, conditions and joins"},
    [IPS2_M_SPIN] = {"spin", "ns", "CPU spent while waiting (spinning)"},
    [IPS2_M_MSGS_SENT] = {"msgs_sent", "", "messages sent"},
    [IPS2_M_MSGS_RECV] = {"msgs_recv", "", "messages received"},
    [IPS2_M_BYTES_SENT] = {"bytes_sent", "bytes", "message bytes sent"},
    [IPS2_M_BYTES_RECV] = {"bytes_recv", "bytes", "message bytes received"},
    [IPS2_M_MSG_WAIT] = {"msg_wait", "ns",
                         "blocked in receives, accepts, connects, poll and select"},
    [IPS2_M_IO_TIME] = {"io_time", "ns", "file I/O time"},
    [IPS2_M_IO_OPS] = {"io_ops", "", "file I/O operations"},
    [IPS2_M_IO_BYTES] = {"io_bytes", "bytes", "file I/O bytes"},
    [IPS2_M_SEEK_TIME] = {"seek_time", "ns", "lseek time"},
    [IPS2_M_PAGE_FAULTS] = {"page_faults", "", "page faults, minor and major (collectors)"},
    [IPS2_M_CTX_SWITCHES] = {"ctx_switches", "",
                             "context switches, voluntary and involuntary (collectors)"},
    [IPS2_M_MINOR_FAULTS] = {"minor_faults", "", "page faults served without I/O (collectors)"},
    [IPS2_M_MAJOR_FAULTS] = {"major_faults", "", "page faults that read from disk (collectors)"},
    [IPS2_M_CTX_VOL] = {"ctx_switches_vol", "",
                        "context switches waiting for something, blocking (collectors)"},
    [IPS2_M_CTX_INVOL] = {"ctx_switches_invol", "", "context switches by preemption (collectors)"},
    [IPS2_M_INSTRUCTIONS] = {"instructions", "", "instructions retired, user mode (collectors)"},
    [IPS2_M_CYCLES] = {"cycles", "", "CPU cycles, user mode (collectors)"},
    [IPS2_M_COUNTED] = {"counted", "",
                        "calls counted only, without times (filters; included in calls)"},
};

const char *ips2_metric_name(unsigned metric)
{
    return metric < IPS2_M_COUNT ? metrics[metric].name : NULL;
}

const char *ips2_metric_unit(unsigned metric)
{
    return metric < IPS2_M_COUNT ? metrics[metric].unit : NULL;
}

const char *ips2_metric_description(unsigned metric)
{
    return metric < IPS2_M_COUNT ? metrics[metric].description : NULL;
}

int ips2_metric_by_name(const char *name)
{
    for (unsigned m = 0; name && m < IPS2_M_COUNT; m++)
        if (strcmp(metrics[m].name, name) == 0)
            return (int)m;
    return -1;
}

const char *ips2_times_name(unsigned times)
{
    return times == IPS2_TIMES_COMPENSATED ? "compensated" : "raw";
}

int ips2_times_by_name(const char *name)
{
    if (name == NULL || *name == '\0')
        return IPS2_TIMES_DEFAULT;
    if (strcmp(name, "raw") == 0)
        return IPS2_TIMES_RAW;
    if (strcmp(name, "compensated") == 0)
        return IPS2_TIMES_COMPENSATED;
    return -1;
}
