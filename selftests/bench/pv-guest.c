// SPDX-License-Identifier: GPL-2.0
/*
 * pv-guest: runs inside a (nested) Linux guest, against the guest kernel's
 * vcpu_is_preempted() (arm64 PV time preempted flag).
 *
 *   pv-guest track SECONDS
 *	Does vcpu_is_preempted() follow reality? Reads <debugfs>/pv_preempted
 *	(the CPUs the guest kernel reports preempted) from a sampler pinned to
 *	CPU 0, first with the guest idle (the other vCPUs block in WFI: never
 *	"preempted"), then with a spinning thread pinned to every other CPU
 *	(more runnable vCPUs than host CPUs: the host must preempt some).
 *	Fails if the sampler's own CPU is ever reported (it is running while
 *	it reads), if the idle phase reports preemption in more than 10% of
 *	samples, or if the loaded phase never reports one. Needs an
 *	overcommitted host for the last check: say so with SECONDS > 0 only
 *	then. Exit 0 pass, 1 fail, 4 skip (no debugfs file: feature absent).
 *
 *   pv-guest mmap SECONDS THREADS
 *	Lock-heavy throughput: THREADS threads mmap, touch and munmap a small
 *	anonymous region in a loop, so every iteration takes the process's
 *	mmap_lock for writing twice; contended writers spin on the owner
 *	(rwsem optimistic spinning: owner_on_cpu(), osq_lock()), which is
 *	what vcpu_is_preempted() cuts short. Prints "mmap ops N rate R/s".
 *
 *   pv-guest spawn SECONDS PROCS
 *	The shell-script pattern: PROCS processes each fork() and exec
 *	/bin/true (busybox in the L2 initramfs) and wait, in a loop. Every
 *	exec maps the same binary (the file's i_mmap_rwsem) and every fork
 *	copies a parent's mappings (its mmap_lock, the shared anon_vma
 *	rwsem): rwsem optimistic spinning across processes. Prints
 *	"spawn procs P execs N rate R/s" and context switches per 1000.
 *
 *   pv-guest wfe COUNT
 *	How long a WFE waiter sleeps when nothing but the architected timer's
 *	event stream wakes it: the delay before a waiter in
 *	smp_cond_load_relaxed() (osq_lock()) re-reads vcpu_is_preempted().
 *	COUNT times "SEVL; WFE; WFE" timed with CNTVCT_EL0 (the first WFE
 *	consumes the local event, the second waits). Prints the mean and the
 *	maximum in microseconds and whether the kernel advertises the event
 *	stream (HWCAP_EVTSTRM). Hardware: about the stream's period (100 us
 *	in Linux) or less; QEMU's TCG does not wait in WFE at all.
 *
 * Static, no dependency beyond libc: it is copied into the L2 initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "metric.h"

#define MAX_CPUS 256
#define PV_FILE "/sys/kernel/debug/pv_preempted"

static atomic_int stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "pv-guest: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

/* Parse a CPU list ("", "1", "1-3,5") into counts[]; returns CPUs listed. */
static int parse_cpulist(const char *s, unsigned long *counts, int *own, int self)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && c < MAX_CPUS; c++) {
			counts[c]++;
			if (c == self)
				(*own)++;
			n++;
		}
		s = (*end == ',') ? end + 1 : end;
	}
	return n;
}

struct phase {
	unsigned long samples, with_preempted;
	unsigned long counts[MAX_CPUS];
	int own;
};

static void sample(struct phase *p, double secs, int ncpus)
{
	char buf[1024];
	double end = now() + secs;

	memset(p, 0, sizeof(*p));
	while (now() < end) {
		int fd = open(PV_FILE, O_RDONLY);
		ssize_t len;

		if (fd < 0) {
			perror("pv-guest: " PV_FILE);
			exit(1);
		}
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len < 0) {
			perror("pv-guest: read");
			exit(1);
		}
		buf[len] = 0;
		p->samples++;
		if (parse_cpulist(buf, p->counts, &p->own, 0))
			p->with_preempted++;
	}
	printf("  samples %lu, with a preempted vCPU %lu (%.1f%%), own CPU reported %d; per CPU:",
	       p->samples, p->with_preempted,
	       p->samples ? 100.0 * p->with_preempted / p->samples : 0.0, p->own);
	for (int c = 0; c < ncpus; c++)
		printf(" %d:%lu", c, p->counts[c]);
	printf("\n");
}

static void *spinner(void *arg)
{
	pin((int)(long)arg);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static int track(double secs)
{
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[MAX_CPUS];
	struct phase idle, busy;
	int fail = 0;

	if (access(PV_FILE, R_OK)) {
		printf("pv-guest: no %s: vcpu_is_preempted() is not paravirtualized here\n", PV_FILE);
		return 4;
	}
	if (ncpus < 2 || ncpus > MAX_CPUS) {
		printf("pv-guest: needs 2..%d CPUs, has %d\n", MAX_CPUS, ncpus);
		return 4;
	}
	pin(0);
	printf("pv-guest: %d vCPUs; idle phase %.0fs\n", ncpus, secs);
	sample(&idle, secs, ncpus);
	for (long c = 1; c < ncpus; c++)
		pthread_create(&th[c], NULL, spinner, (void *)c);
	printf("pv-guest: loaded phase %.0fs (a spinner on CPUs 1-%d)\n", secs, ncpus - 1);
	sample(&busy, secs, ncpus);
	atomic_store(&stop, 1);
	for (int c = 1; c < ncpus; c++)
		pthread_join(th[c], NULL);

	if (idle.own || busy.own) {
		printf("FAIL: the sampler's own CPU was reported preempted while it ran\n");
		fail = 1;
	}
	if (idle.samples == 0 || busy.samples == 0) {
		printf("FAIL: no samples\n");
		fail = 1;
	} else {
		if (idle.with_preempted * 10 > idle.samples) {
			printf("FAIL: idle guest: a vCPU reported preempted in %lu of %lu samples (> 10%%)\n",
			       idle.with_preempted, idle.samples);
			fail = 1;
		}
		if (busy.with_preempted == 0) {
			printf("FAIL: overcommitted guest: no vCPU was ever reported preempted\n");
			fail = 1;
		}
	}
	printf("pv-guest: track %s\n", fail ? "FAIL" : "PASS");
	return fail;
}

static double run_secs;
static atomic_ulong total_ops;

static void *mmap_worker(void *arg)
{
	unsigned long ops = 0;
	long page = sysconf(_SC_PAGESIZE);
	double end = now() + run_secs;

	(void)arg;
	while (now() < end) {
		for (int i = 0; i < 64; i++) {
			char *p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED) {
				perror("pv-guest: mmap");
				exit(1);
			}
			p[0] = 1;
			p[2 * page] = 1;
			munmap(p, 4 * page);
			ops++;
		}
	}
	atomic_fetch_add(&total_ops, ops);
	return NULL;
}

/* The "ctxt" line of /proc/stat: context switches on all CPUs. */
static unsigned long long ctxt_switches(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int mmap_bench(double secs, int threads)
{
	pthread_t th[MAX_CPUS];
	unsigned long long c0;
	char params[32];
	double t0, t;

	if (threads < 1 || threads > MAX_CPUS)
		return 1;
	run_secs = secs;
	c0 = ctxt_switches();
	t0 = now();
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, mmap_worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	t = now() - t0;
	printf("mmap threads %d ops %lu rate %.0f/s\n", threads,
	       (unsigned long)total_ops, total_ops / t);
	snprintf(params, sizeof(params), "\"threads\":%d", threads);
	bench_metric("mmap/munmap rate in the L2 guest", params, "ops/s", "rate", "higher",
		     total_ops / t);
	/* Sleeping instead of spinning shows here: switches per operation. */
	bench_metric("context switches per 1000 mmap ops in the L2 guest", params, "switches",
		     "tally", "lower", total_ops ? 1000.0 * (ctxt_switches() - c0) / total_ops : 0.0);
	return 0;
}

static int spawn_bench(double secs, int procs)
{
	int fds[MAX_CPUS][2];
	unsigned long total = 0;
	unsigned long long c0;
	char params[32];
	double t0, t;

	if (procs < 1 || procs > MAX_CPUS)
		return 1;
	c0 = ctxt_switches();
	t0 = now();
	for (int i = 0; i < procs; i++) {
		if (pipe(fds[i]))
			return 1;
		if (fork() == 0) {
			unsigned long n = 0;
			double end = now() + secs;

			while (now() < end) {
				pid_t pid = fork();
				int st;

				if (pid == 0) {
					execl("/bin/true", "true", (char *)NULL);
					_exit(127);
				}
				if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
					fprintf(stderr, "pv-guest: spawn of /bin/true failed\n");
					_exit(1);
				}
				n++;
			}
			if (write(fds[i][1], &n, sizeof(n)) != sizeof(n))
				_exit(1);
			_exit(0);
		}
	}
	for (int i = 0; i < procs; i++) {
		unsigned long n = 0;
		int st;

		if (read(fds[i][0], &n, sizeof(n)) != sizeof(n))
			return 1;
		total += n;
		wait(&st);
	}
	t = now() - t0;
	printf("spawn procs %d execs %lu rate %.0f/s\n", procs, total, total / t);
	snprintf(params, sizeof(params), "\"procs\":%d", procs);
	bench_metric("fork+exec rate in the L2 guest", params, "execs/s", "rate", "higher", total / t);
	bench_metric("context switches per 1000 fork+execs in the L2 guest", params, "switches",
		     "tally", "lower", total ? 1000.0 * (ctxt_switches() - c0) / total : 0.0);
	return 0;
}

#if defined(__aarch64__)
static inline unsigned long cntvct(void)
{
	unsigned long v;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

static int wfe_wait(long count)
{
	unsigned long freq, max = 0, sum = 0;
	char params[32];

	asm volatile("mrs %0, cntfrq_el0" : "=r"(freq));
	if (count < 1 || !freq)
		return 1;
	for (long i = 0; i < count; i++) {
		unsigned long t0 = cntvct(), d;

		asm volatile("sevl; wfe; wfe" ::: "memory");
		d = cntvct() - t0;
		sum += d;
		if (d > max)
			max = d;
	}
	printf("wfe count %ld mean_us %.2f max_us %.2f evtstrm %s\n", count,
	       1e6 * sum / count / freq, 1e6 * max / freq,
#ifdef HWCAP_EVTSTRM
	       (getauxval(AT_HWCAP) & HWCAP_EVTSTRM) ? "yes" : "no"
#else
	       "unknown"
#endif
	       );
	snprintf(params, sizeof(params), "\"count\":%ld", count);
	bench_metric("WFE wait with no event but the stream, mean", params, "us", "latency", "lower",
		     1e6 * sum / count / freq);
	return 0;
}
#else
static int wfe_wait(long count)
{
	(void)count;
	printf("wfe: arm64 only\n");
	return 4;
}
#endif

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "track"))
		return track(atof(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "mmap"))
		return mmap_bench(atof(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "spawn"))
		return spawn_bench(atof(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "wfe"))
		return wfe_wait(atol(argv[2]));
	fprintf(stderr, "usage: pv-guest track SECONDS | mmap SECONDS THREADS | spawn SECONDS PROCS | wfe COUNT\n");
	return 2;
}
