/*
 * rp_client.c - the load client of rp_server.c (workload_order.test): it
 * connects once, without retrying, so it only works if it starts after the
 * server is ready.
 *
 *   rp_client PORT N
 *
 * Sends N requests of 64 bytes, each through make_request(), and reads
 * each 64-byte answer.  Prints "done N" and exits 0; exits 3 if it cannot
 * connect, 4 if an answer is wrong or missing.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

__attribute__((noinline)) static int make_request(int fd, int i)
{
    char out[64], in[64];
    memset(out, 'a' + i % 26, sizeof out);
    if (send(fd, out, sizeof out, 0) != (ssize_t)sizeof out)
        return -1;
    if (recv(fd, in, sizeof in, MSG_WAITALL) != (ssize_t)sizeof in)
        return -1;
    return in[0] == out[0] + 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: rp_client PORT N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("rp_client: connect");
        return 3;
    }
    for (int i = 0; i < n; i++)
        if (make_request(fd, i) != 0) {
            fprintf(stderr, "rp_client: request %d failed\n", i);
            return 4;
        }
    close(fd);
    printf("done %d\n", n);
    return 0;
}
