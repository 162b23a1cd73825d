// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-irqfd-latency: what does one KVM_IRQFD assignment cost when the host
 * already has many VMs with irqfds?
 *
 * Creates B background VMs, each with an in-kernel GICv3, one vCPU and F
 * irqfds (eventfd -> SPI). Then, in R fresh VMs of the same shape, times
 * every KVM_IRQFD assign and deassign with CLOCK_MONOTONIC and reports
 * p50/p99/max in nanoseconds. Each assignment registers an irq bypass
 * consumer (virt/lib/irqbypass.c), whose matching is what this measures.
 *
 * Standalone: raw KVM ioctls, any arm64 host kernel. One JSON object per
 * line on stdout:
 *   {"benchmark":"irqfd","background_vms":400,"irqfds_per_vm":15,
 *    "samples":300,"assign_ns":{"p50":..,"p99":..,"max":..},
 *    "deassign_ns":{...}}
 *
 * Usage: kvm-irqfd-latency [-b VMS] [-f IRQFDS] [-r ROUNDS]
 *   -b  background VMs (default 0; stops early, and says so, when the host
 *       runs out of memory or file descriptors)
 *   -f  irqfds per VM (default 15, like 5 devices x 3 vectors)
 *   -r  measured VMs (default 20)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "metric.h"

#define GICD_GPA	0x08000000UL
#define GICR_GPA	0x080a0000UL
#define NR_SPIS		64

#define die(...) do { fprintf(stderr, "kvm-irqfd-latency: " __VA_ARGS__); \
		      fprintf(stderr, " (%s)\n", strerror(errno)); exit(1); } while (0)

struct vm {
	int fd, vcpu, gic;
	int *efd;
};

static int kvm_fd;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static int set_attr(int fd, uint32_t group, uint64_t attr, uint64_t *val)
{
	struct kvm_device_attr a = { .group = group, .attr = attr,
				     .addr = (uint64_t)val };

	return ioctl(fd, KVM_SET_DEVICE_ATTR, &a);
}

/* A VM with an initialised GICv3 and one vCPU; 0 or -errno. */
static int vm_create(struct vm *vm, int nfds)
{
	struct kvm_create_device gic = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	struct kvm_vcpu_init init;
	uint64_t addr, nr_irqs = 32 + NR_SPIS;

	memset(vm, 0, sizeof(*vm));
	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return -errno;
	if (ioctl(vm->fd, KVM_CREATE_DEVICE, &gic))
		return -errno;
	vm->gic = gic.fd;
	addr = GICD_GPA;
	if (set_attr(vm->gic, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &addr))
		return -errno;
	addr = GICR_GPA;
	if (set_attr(vm->gic, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST, &addr))
		return -errno;
	if (ioctl(vm->fd, KVM_ARM_PREFERRED_TARGET, &init))
		return -errno;
	vm->vcpu = ioctl(vm->fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu < 0 || ioctl(vm->vcpu, KVM_ARM_VCPU_INIT, &init))
		return -errno;
	if (set_attr(vm->gic, KVM_DEV_ARM_VGIC_GRP_NR_IRQS, 0, &nr_irqs) ||
	    set_attr(vm->gic, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL))
		return -errno;
	vm->efd = calloc(nfds, sizeof(int));
	for (int i = 0; i < nfds; i++) {
		vm->efd[i] = eventfd(0, EFD_CLOEXEC);
		if (vm->efd[i] < 0)
			return -errno;
	}
	return 0;
}

/* Assign (or deassign) irqfd i of vm; returns the ioctl's time in ns. */
static uint64_t irqfd(struct vm *vm, int i, int deassign)
{
	struct kvm_irqfd req = {
		.fd = (uint32_t)vm->efd[i], .gsi = (uint32_t)i,
		.flags = deassign ? KVM_IRQFD_FLAG_DEASSIGN : 0,
	};
	uint64_t t0 = now_ns();

	if (ioctl(vm->fd, KVM_IRQFD, &req))
		die("KVM_IRQFD %s gsi %d", deassign ? "deassign" : "assign", i);
	return now_ns() - t0;
}

static void vm_destroy(struct vm *vm, int nfds)
{
	for (int i = 0; i < nfds; i++)
		close(vm->efd[i]);
	free(vm->efd);
	close(vm->vcpu);
	close(vm->gic);
	close(vm->fd);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* p50, p99 and max of v[0..n-1] (sorts v). */
static void pct(uint64_t *v, int n, uint64_t out[3])
{
	qsort(v, n, sizeof(*v), cmp_u64);
	out[0] = v[n / 2];
	out[1] = v[(int)((n - 1) * 0.99)];
	out[2] = v[n - 1];
}

static void print_pct(const char *name, uint64_t *v, int n)
{
	uint64_t p[3];

	pct(v, n, p);
	printf("\"%s\":{\"p50\":%llu,\"p99\":%llu,\"max\":%llu}", name,
	       (unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2]);
}

/* The structured metrics: KVM_IRQFD <op> p50/p99/max, lower is better. */
static void report_ops(const char *op, uint64_t *v, int n, int nbg, int nfds)
{
	static const char *const which[] = { "p50", "p99", "max" };
	char name[96], params[96];
	uint64_t p[3];
	int i;

	pct(v, n, p);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "KVM_IRQFD %s %s, %d background VMs", op, which[i], nbg);
		snprintf(params, sizeof(params),
			 "\"op\":\"%s\",\"stat\":\"%s\",\"background_vms\":%d,\"irqfds_per_vm\":%d",
			 op, which[i], nbg, nfds);
		bench_metric(name, params, "ns", "latency", "lower", (double)p[i]);
	}
}

int main(int argc, char **argv)
{
	int nbg = 0, nfds = 15, rounds = 20, opt, made, i, j, err = 0, n = 0;
	struct rlimit rl;
	uint64_t *as, *ds;
	struct vm *bg, vm;

	while ((opt = getopt(argc, argv, "b:f:r:h")) != -1) {
		switch (opt) {
		case 'b': nbg = atoi(optarg); break;
		case 'f': nfds = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-b VMS] [-f IRQFDS] [-r ROUNDS]\n", argv[0]);
			return 2;
		}
	}
	if (nbg < 0 || nfds < 1 || nfds > NR_SPIS || rounds < 1) {
		fprintf(stderr, "kvm-irqfd-latency: bad arguments\n");
		return 2;
	}
	/*
	 * Each VM holds 3 + nfds descriptors. Ask for enough; root may raise
	 * the hard limit up to fs.nr_open, anyone else gets the soft limit
	 * raised to the hard one.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rlim_t want = (rlim_t)(nbg + 2) * (3 + nfds) + 64;
		FILE *f = fopen("/proc/sys/fs/nr_open", "r");
		unsigned long nr_open = 0;

		if (f) {
			if (fscanf(f, "%lu", &nr_open) != 1)
				nr_open = 0;
			fclose(f);
		}
		if (nr_open && want > nr_open)
			want = nr_open;
		if (want > rl.rlim_max) {
			struct rlimit more = { .rlim_cur = want, .rlim_max = want };

			if (!setrlimit(RLIMIT_NOFILE, &more))
				rl = more;
		}
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("/dev/kvm");

	bg = calloc(nbg ? nbg : 1, sizeof(*bg));
	for (made = 0; made < nbg; made++) {
		err = vm_create(&bg[made], nfds);
		if (err)
			break;
		for (j = 0; j < nfds; j++)
			irqfd(&bg[made], j, 0);
	}
	if (made < nbg)
		fprintf(stderr, "kvm-irqfd-latency: only %d of %d background VMs (%s)\n",
			made, nbg, strerror(-err));

	as = calloc((size_t)rounds * nfds, sizeof(*as));
	ds = calloc((size_t)rounds * nfds, sizeof(*ds));
	for (i = 0; i < rounds; i++) {
		err = vm_create(&vm, nfds);
		if (err) {
			errno = -err;
			die("measured VM %d", i);
		}
		for (j = 0; j < nfds; j++)
			as[n + j] = irqfd(&vm, j, 0);
		for (j = 0; j < nfds; j++)
			ds[n + j] = irqfd(&vm, j, 1);
		n += nfds;
		vm_destroy(&vm, nfds);
	}
	printf("{\"benchmark\":\"irqfd\",\"background_vms\":%d,\"requested_background_vms\":%d,"
	       "\"irqfds_per_vm\":%d,\"samples\":%d,", made, nbg, nfds, n);
	print_pct("assign_ns", as, n);
	printf(",");
	print_pct("deassign_ns", ds, n);
	printf("}\n");
	report_ops("assign", as, n, made, nfds);
	report_ops("deassign", ds, n, made, nfds);
	for (i = 0; i < made; i++)
		vm_destroy(&bg[i], nfds);
	return 0;
}
