/*
 * image.h - where a loaded module of the test program lies, as libips2
 * records it in a module map: its load bias and the span of its PT_LOAD
 * segments.  Include after <cmocka.h>.
 */
#ifndef IPS2_TEST_IMAGE_H
#define IPS2_TEST_IMAGE_H

#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

struct image {
    uint64_t bias, start, end;
    char path[PATH_MAX];
};

/* The bias and load span of the module `info` describes. */
static inline void image_of(const struct dl_phdr_info *info, struct image *img)
{
    uint64_t lo = UINT64_MAX, hi = 0;

    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    img->bias = info->dlpi_addr;
    img->start = info->dlpi_addr + lo;
    img->end = info->dlpi_addr + hi;
}

struct image_find {
    uintptr_t addr; /* the module containing addr; 0 = main executable */
    struct image *out;
    int found;
};

static inline int image_find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    struct image_find *f = data;
    struct image img;

    (void)size;
    image_of(info, &img);
    if (f->addr == 0 ? info->dlpi_name[0] == '\0' : f->addr >= img.start && f->addr < img.end) {
        const char *name = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
        *f->out = img;
        snprintf(f->out->path, sizeof(f->out->path), "%s", name);
        f->found = 1;
        return 1;
    }
    return 0;
}

/* The module containing addr (0: the main executable, named
 * /proc/self/exe) into *img; fails the test when there is none. */
static inline void find_image(uintptr_t addr, struct image *img)
{
    struct image_find f = {.addr = addr, .out = img};

    dl_iterate_phdr(image_find_cb, &f);
    assert_true(f.found);
}

#endif /* IPS2_TEST_IMAGE_H */
