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
 *   pv-guest ab WORKLOAD SECONDS WORKERS PAIRS
 *	The experiment that decides whether the flag helps: one kernel, one
 *	boot, the guest's use of the flag switched at run time
 *	(<debugfs>/pv_preempted, 0 or 1) between the two phases of each of
 *	PAIRS pairs, the order alternating (off/on, on/off, ...). Each phase
 *	runs WORKLOAD ("mmap" or "spawn", as above, or "hackbench": rt-tests'
 *	hackbench with WORKERS groups, where the initramfs has it) for
 *	SECONDS with WORKERS threads or processes (0: one per online CPU) and
 *	prints, with "ab" and "pair" in the params:
 *	the rate (indicative under TCG), context switches per 1000
 *	operations, vcpu_is_preempted() calls and true returns per 1000
 *	operations and the true returns of the lock spinners (osq_lock(),
 *	rwsem, mutex: a spinner that stopped or did not start spinning)
 *	from <debugfs>/pv_preempted_sites, the wake-up latency of a probe
 *	thread (a 5 ms periodic timer sleep: how late it runs, mean and
 *	99th percentile), and the steal time of the vCPUs (with KVM's PV
 *	time, the host's run delay of the vCPU threads). Phases start after
 *	AB_GAP_S of idling. scripts/lib/bench.py ab turns the pairs into ratios
 *	with intervals.
 *	Exit 4 (skip) when the guest has no switch (flag not advertised).
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

/*
 * Steal time of all CPUs in seconds ("cpu" line of /proc/stat, 8th value):
 * under KVM's PV time it is the host's run delay of the vCPU threads
 * (sched_info.run_delay, as kvm_update_stolen_time() reports it).
 */
static double steal_seconds(void)
{
	unsigned long long v[8] = { 0 };
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		       &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return (double)v[7] / sysconf(_SC_CLK_TCK);
}

/* One workload run, no metric printed: the operations it did. */
static unsigned long run_mmap(double secs, int threads)
{
	pthread_t th[MAX_CPUS];

	run_secs = secs;
	atomic_store(&total_ops, 0);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, mmap_worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return atomic_load(&total_ops);
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
	unsigned long long c0;
	char params[32];
	double t0, t;

	if (threads < 1 || threads > MAX_CPUS)
		return 1;
	c0 = ctxt_switches();
	t0 = now();
	run_mmap(secs, threads);
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

/* PROCS processes fork+exec /bin/true for SECS; the execs done, 0 on error */
static unsigned long run_spawn(double secs, int procs)
{
	int fds[MAX_CPUS][2];
	unsigned long total = 0;

	for (int i = 0; i < procs; i++) {
		if (pipe(fds[i]))
			return 0;
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
			return 0;
		close(fds[i][0]);
		close(fds[i][1]);
		total += n;
		wait(&st);
	}
	return total;
}

static int spawn_bench(double secs, int procs)
{
	unsigned long total;
	unsigned long long c0;
	char params[32];
	double t0, t;

	if (procs < 1 || procs > MAX_CPUS)
		return 1;
	c0 = ctxt_switches();
	t0 = now();
	total = run_spawn(secs, procs);
	if (!total)
		return 1;
	t = now() - t0;
	printf("spawn procs %d execs %lu rate %.0f/s\n", procs, total, total / t);
	snprintf(params, sizeof(params), "\"procs\":%d", procs);
	bench_metric("fork+exec rate in the L2 guest", params, "execs/s", "rate", "higher", total / t);
	bench_metric("context switches per 1000 fork+execs in the L2 guest", params, "switches",
		     "tally", "lower", total ? 1000.0 * (ctxt_switches() - c0) / total : 0.0);
	return 0;
}

/* ---- ab: the flag off and on, alternating, in one boot ---------------- */

/* PV_GUEST_DEBUGFS: another directory, for the harness's own test of ab */
static char pv_path[256], sites_path[256];
#define AB_GAP_S 0.5
#define MAX_SITES 256
#define MAX_WAKES 100000

struct sites {
	int n;
	struct { char name[96]; unsigned long long calls, preempted; } s[MAX_SITES];
};

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* <debugfs>/pv_preempted_sites: "counting N", then "<caller> <calls> <true>" */
static void read_sites(struct sites *t)
{
	char line[256], name[96];
	unsigned long long c, p;
	FILE *f = fopen(sites_path, "r");

	t->n = 0;
	if (!f) {
		perror(sites_path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%95s %llu %llu", name, &c, &p) == 3 && t->n < MAX_SITES) {
			char *plus = strchr(name, '+');

			int i;

			if (plus)	/* one entry per function, whatever the offset */
				*plus = 0;
			for (i = 0; i < t->n && strcmp(t->s[i].name, name); i++)
				;
			if (i == t->n) {
				strcpy(t->s[i].name, name);
				t->s[i].calls = t->s[i].preempted = 0;
				t->n++;
			}
			t->s[i].calls += c;
			t->s[i].preempted += p;
		}
	fclose(f);
}

/* The callers that spin on a lock owner: a true return made them give up. */
static int spinner_site(const char *name)
{
	return strstr(name, "osq_lock") || strstr(name, "rwsem") || strstr(name, "mutex");
}

struct site_delta {
	unsigned long long calls, preempted, spin_preempted;
};

static struct site_delta sites_delta(const struct sites *a, const struct sites *b)
{
	struct site_delta d = { 0, 0, 0 };

	for (int i = 0; i < b->n; i++) {
		unsigned long long c = b->s[i].calls, p = b->s[i].preempted;

		for (int j = 0; j < a->n; j++)
			if (!strcmp(a->s[j].name, b->s[i].name)) {
				c -= a->s[j].calls;
				p -= a->s[j].preempted;
				break;
			}
		d.calls += c;
		d.preempted += p;
		if (spinner_site(b->s[i].name))
			d.spin_preempted += p;
	}
	return d;
}

/* The wake-up latency probe: a 5 ms periodic absolute timer sleep. */
static atomic_int probe_stop;
static double wakes[MAX_WAKES];
static int n_wakes;

static void *probe(void *arg)
{
	struct timespec next;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&probe_stop) && n_wakes < MAX_WAKES) {
		struct timespec t;

		next.tv_nsec += 5000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
		wakes[n_wakes++] = (t.tv_sec - next.tv_sec) * 1e6 + (t.tv_nsec - next.tv_nsec) / 1e3;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}


/*
 * hackbench (rt-tests) as a workload: WORKERS groups, 100 loops, run
 * again and again for SECS; an operation is one whole run. Only where
 * the initramfs has /hackbench (make hw-pv-ab copies the host's).
 */
#define HACKBENCH "/hackbench"

static unsigned long run_hackbench(double secs, int groups)
{
	double end = now() + secs;
	unsigned long runs = 0;
	char g[16];

	snprintf(g, sizeof(g), "%d", groups);
	while (now() < end) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execl(HACKBENCH, "hackbench", "-g", g, "-l", "100", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "pv-guest: %s failed\n", HACKBENCH);
			return 0;
		}
		runs++;
	}
	return runs;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int ab_phase(const char *workload, double secs, int workers, int on, int pair)
{
	const char *state = on ? "on" : "off";
	unsigned long long c0, c1;
	struct sites s0, s1;
	struct site_delta d;
	unsigned long ops;
	pthread_t pt;
	char params[96];
	double t0, t, st0, st1, mean = 0, p99 = 0;

	if (write_file(pv_path, on ? "1" : "0")) {
		perror(pv_path);
		return 1;
	}
	sleep_s(AB_GAP_S);
	read_sites(&s0);
	st0 = steal_seconds();
	c0 = ctxt_switches();
	atomic_store(&probe_stop, 0);
	n_wakes = 0;
	pthread_create(&pt, NULL, probe, NULL);
	t0 = now();
	if (!strcmp(workload, "mmap"))
		ops = run_mmap(secs, workers);
	else if (!strcmp(workload, "spawn"))
		ops = run_spawn(secs, workers);
	else
		ops = run_hackbench(secs, workers);
	t = now() - t0;
	atomic_store(&probe_stop, 1);
	pthread_join(pt, NULL);
	c1 = ctxt_switches();
	st1 = steal_seconds();
	read_sites(&s1);
	if (!ops)
		return 1;
	d = sites_delta(&s0, &s1);
	if (n_wakes) {
		for (int i = 0; i < n_wakes; i++)
			mean += wakes[i];
		mean /= n_wakes;
		qsort(wakes, n_wakes, sizeof(wakes[0]), cmp_double);
		p99 = wakes[(int)(0.99 * (n_wakes - 1))];
	}
	printf("ab pair %d %s: ops %lu rate %.0f/s ctxt/1000 %.1f calls %llu true %llu spinner-true %llu wake mean %.0f us p99 %.0f us steal %.2f s\n",
	       pair, state, ops, ops / t, 1000.0 * (c1 - c0) / ops, d.calls, d.preempted,
	       d.spin_preempted, mean, p99, st1 - st0);
	snprintf(params, sizeof(params), "\"ab\":\"%s\",\"pair\":%d,\"workers\":%d", state, pair,
		 workers);
	bench_metric("operation rate", params, "ops/s", "rate", "higher", ops / t);
	bench_metric("context switches per 1000 operations", params, "switches", "tally", "lower",
		     1000.0 * (c1 - c0) / ops);
	bench_metric("vcpu_is_preempted() calls per 1000 operations", params, "calls", "tally",
		     "neither", 1000.0 * d.calls / ops);
	bench_metric("vcpu_is_preempted() true per 1000 operations", params, "returns", "tally",
		     "neither", 1000.0 * d.preempted / ops);
	bench_metric("true in a lock spinner (stopped or did not spin) per 1000 operations", params,
		     "returns", "tally", "neither", 1000.0 * d.spin_preempted / ops);
	bench_metric("steal time of the vCPUs (host run delay of their threads)", params,
		     "ms per s", "latency", "lower", 1000.0 * (st1 - st0) / t);
	bench_metric("wake-up latency of a 5 ms timer probe, mean", params, "us", "latency",
		     "lower", mean);
	bench_metric("wake-up latency of a 5 ms timer probe, p99", params, "us", "latency",
		     "lower", p99);
	return 0;
}

static int ab(const char *workload, double secs, int workers, int pairs)
{
	const char *dir = getenv("PV_GUEST_DEBUGFS");
	struct sites all;
	int rc = 0;

	if (strcmp(workload, "mmap") && strcmp(workload, "spawn") && strcmp(workload, "hackbench")) {
		fprintf(stderr, "pv-guest: ab: WORKLOAD is mmap, spawn or hackbench\n");
		return 2;
	}
	if (!strcmp(workload, "hackbench") && access(HACKBENCH, X_OK)) {
		printf("pv-guest: no %s in this initramfs (make hw-pv-ab copies the host's, from rt-tests)\n",
		       HACKBENCH);
		return 4;
	}
	if (workers == 0)	/* one per online CPU */
		workers = sysconf(_SC_NPROCESSORS_ONLN);
	if (workers < 1 || workers > MAX_CPUS || pairs < 1 || secs <= 0)
		return 2;
	snprintf(pv_path, sizeof(pv_path), "%s/pv_preempted", dir ? dir : "/sys/kernel/debug");
	snprintf(sites_path, sizeof(sites_path), "%s/pv_preempted_sites",
		 dir ? dir : "/sys/kernel/debug");
	if (access(pv_path, W_OK) || access(sites_path, W_OK)) {
		printf("pv-guest: no writable %s and %s: the flag is not advertised, or the guest kernel has no switch\n",
		       pv_path, sites_path);
		return 4;
	}
	if (write_file(sites_path, "1")) {
		perror(sites_path);
		return 1;
	}
	printf("pv-guest: ab %s, %d pairs of %g s phases, %d workers, %ld vCPUs\n", workload,
	       pairs, secs, workers, sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0; i < pairs && !rc; i++) {
		int first = i % 2;	/* off first in even pairs, on first in odd */

		rc = ab_phase(workload, secs, workers, first, i) ||
		     ab_phase(workload, secs, workers, !first, i);
	}
	sleep_s(AB_GAP_S);
	read_sites(&all);
	printf("pv-guest: vcpu_is_preempted() callers over the run (calls, true):\n");
	for (int i = 0; i < all.n; i++)
		printf("  %s %llu %llu\n", all.s[i].name, all.s[i].calls, all.s[i].preempted);
	write_file(sites_path, "0");
	write_file(pv_path, "1");
	return rc;
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
	if (argc == 6 && !strcmp(argv[1], "ab"))
		return ab(argv[2], atof(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc == 3 && !strcmp(argv[1], "wfe"))
		return wfe_wait(atol(argv[2]));
	fprintf(stderr, "usage: pv-guest track SECONDS | mmap SECONDS THREADS | spawn SECONDS PROCS |\n"
		"       ab mmap|spawn|hackbench SECONDS WORKERS PAIRS | wfe COUNT\n");
	return 2;
}
