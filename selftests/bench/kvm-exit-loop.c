// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exit-loop: how many exits to userspace per second can N vCPUs make
 * when each runs alone on its own CPU?
 *
 * Every vCPU runs a two-instruction guest (store to an address outside any
 * memslot, branch back), so each iteration is one KVM_EXIT_MMIO to
 * userspace and one KVM_RUN: a full vcpu_put()/vcpu_load() cycle on the
 * host. With perfect scaling the rate per vCPU does not depend on N.
 *
 * With -t HZ (in-kernel GICv3 only) the guest also takes its virtual timer
 * interrupt HZ times a second, as a guest kernel's tick does: it enables
 * the timer PPI in its redistributor and the group in the distributor,
 * and its IRQ handler acknowledges the interrupt, re-arms the timer (the
 * line drops) and EOIs it, so the host also runs the paths of a guest
 * timer interrupt (injection, and the resampling of the mapped level
 * interrupt on the next exit). The interrupts taken are reported.
 *
 * Standalone: raw KVM ioctls only, runs on any arm64 host kernel (QEMU L1
 * or hardware). One JSON object per line on stdout, for the bench
 * collector:
 *   {"benchmark":"exit-loop","irqchip":"kernel","vcpus":4,"pinned":true,
 *    "seconds":2.00,"exits":[...],"per_vcpu":..., "aggregate":...}
 *
 * Usage: kvm-exit-loop [-i kernel|user] [-n N[,N...]] [-s seconds] [-t HZ] [-u]
 *   -i  in-kernel GICv3 (default) or no in-kernel irqchip ("user")
 *   -t  the guest takes its virtual timer interrupt HZ times a second
 *   -n  vCPU counts to run, default 1,2,4,... up to the number of CPUs
 *   -s  seconds per measurement (default 2)
 *   -u  do not pin vCPU threads (also implied when N > CPUs)
 *
 * vCPU i is pinned to the i-th CPU the process may run on, so
 * "taskset -c 4-35 kvm-exit-loop" measures on CPUs 4-35 (e.g. isolated ones).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "metric.h"

#define GUEST_CODE_GPA	0x40000000UL
#define GUEST_MEM_SIZE	0x10000UL
#define MMIO_GPA	0x0a000000UL	/* outside every memslot */
#define PANIC_GPA	0x0b000000UL	/* the guest's unexpected-exception store */
#define GICD_GPA	0x08000000UL
#define GICR_GPA	0x080a0000UL
#define MAX_VCPUS	512
#define GICR_STRIDE	0x20000UL	/* RD_base + SGI_base frames per vCPU */
#define GICR_ISENABLER0	(0x10000 + 0x100)
#define VTIMER_INTID	27

#define die(...) do { fprintf(stderr, "kvm-exit-loop: " __VA_ARGS__); \
		      fprintf(stderr, " (%s)\n", strerror(errno)); exit(1); } while (0)

/*
 * The guest with -t, position independent, copied to GUEST_CODE_GPA. On
 * entry (EL1h, interrupts masked, MMU off): x0 the exit address, x3 the
 * vCPU's GICR_ISENABLER0, x4 the timer PPI's bit, x5 the timer period in
 * counter ticks, x9 GICD_CTLR, x10 PANIC_GPA. x7 counts the interrupts.
 * Any exception but an IRQ stores to PANIC_GPA: the host stops there.
 */
extern const uint32_t timer_guest[], timer_guest_end[];
asm(".pushsection .rodata\n"
    ".balign 2048\n"
    ".globl timer_guest, timer_guest_end\n"
    "timer_guest:\n"
    "	adr	x2, 1f\n"
    "	msr	vbar_el1, x2\n"
    "	mov	x2, #1\n"
    "	msr	S3_0_C12_C12_5, x2\n"	/* ICC_SRE_EL1.SRE */
    "	isb\n"
    "	mov	x2, #0xff\n"
    "	msr	S3_0_C4_C6_0, x2\n"	/* ICC_PMR_EL1: every priority */
    "	mov	x2, #1\n"
    "	msr	S3_0_C12_C12_7, x2\n"	/* ICC_IGRPEN1_EL1 */
    "	mov	w2, #2\n"
    "	str	w2, [x9]\n"		/* GICD_CTLR.EnableGrp1A */
    "	str	w4, [x3]\n"		/* enable the timer PPI */
    "	msr	cntv_tval_el0, x5\n"
    "	mov	x2, #1\n"
    "	msr	cntv_ctl_el0, x2\n"	/* enabled, not masked */
    "	isb\n"
    "	msr	daifclr, #2\n"
    "0:	str	w1, [x0]\n"		/* the exit loop */
    "	b	0b\n"
    ".balign 2048\n"
    "1:\n"				/* VBAR_EL1 */
    ".rept 5\n"			/* 0x000-0x200: SP_EL0 x4, SP_ELx sync */
    "	str	w1, [x10]\n"
    "	b	.\n"
    "	.balign 128\n"
    ".endr\n"
    "	mrs	x6, S3_0_C12_C12_0\n"	/* 0x280 IRQ: ICC_IAR1_EL1 */
    "	msr	cntv_tval_el0, x5\n"	/* re-armed: the line drops */
    "	isb\n"
    "	msr	S3_0_C12_C12_1, x6\n"	/* ICC_EOIR1_EL1 (EOImode 0) */
    "	add	x7, x7, #1\n"
    "	eret\n"
    "	.balign 128\n"
    ".rept 10\n"			/* 0x300-0x780: FIQ, SError, lower ELs */
    "	str	w1, [x10]\n"
    "	b	.\n"
    "	.balign 128\n"
    ".endr\n"
    "timer_guest_end:\n"
    ".popsection\n");

/* KVM_REG_ARM_CORE register id of a field of struct kvm_regs. */
#define CORE_REG(field) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
			 (offsetof(struct kvm_regs, field) / sizeof(__u32)))

struct vcpu {
	int fd;
	struct kvm_run *run;
	int cpu;		/* -1: not pinned */
	pthread_t thread;
	uint64_t exits;
	uint64_t timer_irqs;
};

static int kvm_fd, run_size;
static int allowed[MAX_VCPUS];	/* the CPUs we may run on, in order */
static atomic_int go, stop;

static void set_reg(int vcpu_fd, uint64_t id, uint64_t val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)&val };

	if (ioctl(vcpu_fd, KVM_SET_ONE_REG, &reg))
		die("KVM_SET_ONE_REG 0x%llx", (unsigned long long)id);
}

static uint64_t get_reg(int vcpu_fd, uint64_t id)
{
	uint64_t val;
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)&val };

	if (ioctl(vcpu_fd, KVM_GET_ONE_REG, &reg))
		die("KVM_GET_ONE_REG 0x%llx", (unsigned long long)id);
	return val;
}

static void set_attr(int fd, uint32_t group, uint64_t attr, uint64_t *val)
{
	struct kvm_device_attr a = { .group = group, .attr = attr,
				     .addr = (uint64_t)val };

	if (ioctl(fd, KVM_SET_DEVICE_ATTR, &a))
		die("KVM_SET_DEVICE_ATTR group %u attr %llu", group,
		    (unsigned long long)attr);
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;

	if (v->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(v->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			die("pinning to CPU %d", v->cpu);
	}
	while (!atomic_load(&go))
		;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (ioctl(v->fd, KVM_RUN, 0) && errno != EINTR)
			die("KVM_RUN");
		if (v->run->exit_reason != KVM_EXIT_MMIO) {
			fprintf(stderr, "kvm-exit-loop: unexpected exit reason %u\n",
				v->run->exit_reason);
			exit(1);
		}
		if (v->run->mmio.phys_addr == PANIC_GPA) {
			fprintf(stderr, "kvm-exit-loop: the guest took an unexpected exception\n");
			exit(1);
		}
		v->exits++;
	}
	return NULL;
}

/* One measurement: a fresh VM with n vCPUs, all looping for `secs`. */
static void measure(int n, bool kernel_irqchip, bool pin, double secs, int ncpus,
		    unsigned int timer_hz)
{
	/* str w1, [x0]; b .-4 */
	static const uint32_t code[] = { 0xb9000001, 0x17ffffff };
	struct kvm_userspace_memory_region mem;
	struct kvm_create_device gic = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	struct kvm_vcpu_init init;
	struct vcpu *vcpus = calloc(n, sizeof(*vcpus));
	struct timespec t0, t1;
	uint64_t addr, total = 0, timer_irqs = 0, cntfrq;
	bool pinned = pin && n <= ncpus;
	char tag[32], params[96], name[96];
	void *ram;
	int vm, i;

	vm = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	ram = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED)
		die("mmap");
	if (timer_hz)
		memcpy(ram, timer_guest, (char *)timer_guest_end - (char *)timer_guest);
	else
		memcpy(ram, code, sizeof(code));
	mem = (struct kvm_userspace_memory_region) {
		.slot = 0, .guest_phys_addr = GUEST_CODE_GPA,
		.memory_size = GUEST_MEM_SIZE, .userspace_addr = (uint64_t)ram,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem))
		die("KVM_SET_USER_MEMORY_REGION");

	if (kernel_irqchip) {
		if (ioctl(vm, KVM_CREATE_DEVICE, &gic))
			die("KVM_CREATE_DEVICE(VGIC_V3): no in-kernel GICv3 (use -i user)");
		addr = GICD_GPA;
		set_attr(gic.fd, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &addr);
		addr = GICR_GPA;
		set_attr(gic.fd, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST, &addr);
	}

	if (ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init))
		die("KVM_ARM_PREFERRED_TARGET");
	for (i = 0; i < n; i++) {
		struct vcpu *v = &vcpus[i];

		v->fd = ioctl(vm, KVM_CREATE_VCPU, i);
		if (v->fd < 0)
			die("KVM_CREATE_VCPU %d", i);
		v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
		if (v->run == MAP_FAILED)
			die("mmap kvm_run");
		if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init))
			die("KVM_ARM_VCPU_INIT");
		set_reg(v->fd, CORE_REG(regs.pc), GUEST_CODE_GPA);
		set_reg(v->fd, CORE_REG(regs.regs[0]), MMIO_GPA + 8 * i);
		if (timer_hz) {
			asm volatile("mrs %0, cntfrq_el0" : "=r" (cntfrq));
			set_reg(v->fd, CORE_REG(regs.regs[3]),
				GICR_GPA + i * GICR_STRIDE + GICR_ISENABLER0);
			set_reg(v->fd, CORE_REG(regs.regs[4]), 1U << VTIMER_INTID);
			set_reg(v->fd, CORE_REG(regs.regs[5]), cntfrq / timer_hz);
			set_reg(v->fd, CORE_REG(regs.regs[7]), 0);
			set_reg(v->fd, CORE_REG(regs.regs[9]), GICD_GPA);
			set_reg(v->fd, CORE_REG(regs.regs[10]), PANIC_GPA);
		}
		v->cpu = pinned ? allowed[i] : -1;
	}
	if (kernel_irqchip)
		set_attr(gic.fd, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL);

	atomic_store(&go, 0);
	atomic_store(&stop, 0);
	for (i = 0; i < n; i++)
		if (pthread_create(&vcpus[i].thread, NULL, vcpu_thread, &vcpus[i]))
			die("pthread_create");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	atomic_store(&go, 1);
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		pthread_join(vcpus[i].thread, NULL);
		if (timer_hz)
			timer_irqs += get_reg(vcpus[i].fd, CORE_REG(regs.regs[7]));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("{\"benchmark\":\"exit-loop\",\"irqchip\":\"%s\",\"vcpus\":%d,"
	       "\"pinned\":%s,\"cpus\":%d,\"seconds\":%.3f,\"exits\":[",
	       kernel_irqchip ? "kernel" : "user", n, pinned ? "true" : "false",
	       ncpus, secs);
	for (i = 0; i < n; i++) {
		total += vcpus[i].exits;
		printf("%s%llu", i ? "," : "", (unsigned long long)vcpus[i].exits);
	}
	printf("],\"per_vcpu\":%.1f,\"aggregate\":%.1f,\"timer_hz\":%u,"
	       "\"timer_irqs\":%llu}\n", total / secs / n, total / secs, timer_hz,
	       (unsigned long long)timer_irqs);
	snprintf(tag, sizeof(tag), "%d vCPUs%s", n, pinned ? "" : " unpinned");
	snprintf(params, sizeof(params), "\"vcpus\":%d,\"pinned\":%s,\"irqchip\":\"%s\"",
		 n, pinned ? "true" : "false", kernel_irqchip ? "kernel" : "user");
	snprintf(name, sizeof(name), "exits/s per vCPU, %s", tag);
	bench_metric(name, params, "exits/s", "rate", "higher", total / secs / n);
	snprintf(name, sizeof(name), "exits/s aggregate, %s", tag);
	bench_metric(name, params, "exits/s", "rate", "higher", total / secs);
	if (timer_hz) {
		/* How many the guests took depends on the run's speed: a tally. */
		snprintf(name, sizeof(name), "guest timer interrupts, %s", tag);
		bench_metric(name, params, "interrupts", "tally", "neither", timer_irqs);
	}

	for (i = 0; i < n; i++) {
		munmap(vcpus[i].run, run_size);
		close(vcpus[i].fd);
	}
	if (kernel_irqchip)
		close(gic.fd);
	close(vm);
	munmap(ram, GUEST_MEM_SIZE);
	free(vcpus);
}

int main(int argc, char **argv)
{
	int ncpus = 0, cpu;
	bool kernel_irqchip = true, pin = true;
	int counts[64], ncounts = 0, opt, i;
	unsigned int timer_hz = 0;
	double secs = 2.0;
	char *tok;

	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	for (cpu = 0; cpu < CPU_SETSIZE && ncpus < MAX_VCPUS; cpu++)
		if (CPU_ISSET(cpu, &set))
			allowed[ncpus++] = cpu;

	while ((opt = getopt(argc, argv, "i:n:s:t:uh")) != -1) {
		switch (opt) {
		case 'i':
			if (!strcmp(optarg, "kernel"))
				kernel_irqchip = true;
			else if (!strcmp(optarg, "user"))
				kernel_irqchip = false;
			else
				goto usage;
			break;
		case 'n':
			for (tok = strtok(optarg, ","); tok && ncounts < 64; tok = strtok(NULL, ","))
				counts[ncounts++] = atoi(tok);
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 't':
			timer_hz = atoi(optarg);
			if (timer_hz < 1 || timer_hz > 100000)
				goto usage;
			break;
		case 'u':
			pin = false;
			break;
		default:
			goto usage;
		}
	}
	if (!ncounts)
		for (i = 1; i <= ncpus && ncounts < 64; i *= 2)
			counts[ncounts++] = i;
	for (i = 0; i < ncounts; i++)
		if (counts[i] < 1 || counts[i] > MAX_VCPUS || secs <= 0)
			goto usage;
	if (timer_hz && !kernel_irqchip)
		goto usage;	/* the guest's timer interrupt needs the vGIC */

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("/dev/kvm");
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size <= 0)
		die("KVM_GET_VCPU_MMAP_SIZE");
	for (i = 0; i < ncounts; i++)
		measure(counts[i], kernel_irqchip, pin, secs, ncpus, timer_hz);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-i kernel|user] [-n N[,N...]] [-s seconds] [-t HZ (kernel only)] [-u]\n",
		argv[0]);
	return 2;
}
