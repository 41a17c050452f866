/*
 * pvmpipe.c - planted: a PVM pipeline with a late sender (search workload
 * pvmpipe.tcl).  The workload starts the producer; it enrolls in PVM
 * (pvm_mytid), spawns one consumer (this program again, an absolute path,
 * with the argument "consumer") and then, N times, makes an item in
 * produce_item() (WORK ms of CPU) and sends it (pvm_initsend, pvm_pkint,
 * pvm_send, tag 1).  The consumer receives each item (pvm_recv, tag 1)
 * as soon as it can, uses it in consume_item() (a tenth of WORK), and
 * acknowledges it (tag 2).  So the consumer spends most of its time
 * blocked in pvm_recv for a message its producer has not sent yet.
 * The decoy is the other channel: the producer collects the N
 * acknowledgements only after its last item, when they have all arrived
 * (at most the last one is waited for, a tenth of WORK).
 *
 *   pvmpipe -items N -work MS            (the producer)
 *
 * Truth: messageBottleneck / excessiveMessageWaiting / lateSender, the
 * waiting process the consumer, the late one the producer; no message
 * waiting reported for the producer (the acknowledgements).  Run with
 * PVM_EXPORT=IPS2_SESSION:IPS2_APP so that the consumer is traced into the
 * same session.  Exit status 0, 1 when PVM fails, 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pvm3.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

#define TAG_ITEM 1
#define TAG_ACK  2

__attribute__((noinline)) static int produce_item(int serial, double work_ms)
{
    burn_cpu(work_ms);
    return serial * 7 + 1;
}

__attribute__((noinline)) static int consume_item(int item, double work_ms)
{
    burn_cpu(work_ms);
    return item - 1;
}

static int consumer(int parent)
{
    int items = 0, rc = 0;
    double work_ms = 0;
    if (pvm_recv(parent, TAG_ITEM) < 0 || pvm_upkint(&items, 1, 1) < 0 ||
        pvm_upkdouble(&work_ms, 1, 1) < 0)
        rc = 1;
    for (int i = 0; rc == 0 && i < items; i++) {
        int item;
        if (pvm_recv(parent, TAG_ITEM) < 0 || pvm_upkint(&item, 1, 1) < 0) {
            rc = 1;
            break;
        }
        int used = consume_item(item, work_ms / 10.0);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&used, 1, 1);
        if (pvm_send(parent, TAG_ACK) < 0)
            rc = 1;
    }
    pvm_exit();
    return rc;
}

static int producer(const char *self, int items, double work_ms)
{
    char *args[] = {"consumer", NULL};
    int child;
    if (pvm_spawn((char *)self, args, PvmTaskDefault, "", 1, &child) != 1) {
        fprintf(stderr, "pvmpipe: pvm_spawn %s failed (%d)\n", self, child);
        pvm_exit();
        return 1;
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&items, 1, 1);
    pvm_pkdouble(&work_ms, 1, 1);
    pvm_send(child, TAG_ITEM);
    for (int i = 0; i < items; i++) {
        int item = produce_item(i, work_ms);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&item, 1, 1);
        if (pvm_send(child, TAG_ITEM) < 0) {
            pvm_exit();
            return 1;
        }
    }
    int acked = 0;
    for (int i = 0; i < items; i++) {
        int used;
        if (pvm_recv(child, TAG_ACK) < 0 || pvm_upkint(&used, 1, 1) < 0)
            break;
        acked += used == i * 7;
    }
    printf("pvmpipe: %d items, %d acknowledged\n", items, acked);
    pvm_exit();
    return acked == items ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (pvm_mytid() < 0) {
        fprintf(stderr, "pvmpipe: no pvmd\n");
        return 1;
    }
    int parent = pvm_parent();
    if (parent > 0)
        return consumer(parent);
    int items = 60;
    double work_ms = 20;
    const struct opt opts[] = {
        {"-items", OPT_INT, &items},
        {"-work", OPT_DOUBLE, &work_ms},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || items < 1 || work_ms < 0 || argv[0][0] != '/') {
        fprintf(stderr, "usage: /ABSOLUTE/PATH/pvmpipe -items N -work MS\n");
        pvm_exit();
        return 2;
    }
    return producer(argv[0], items, work_ms);
}
