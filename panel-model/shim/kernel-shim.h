/* SPDX-License-Identifier: MIT */
/*
 * What epdfb's panel model (kernel/epdfb_queue.c, epdfb_marker.c,
 * epdfb_trace.c, epdfb_sim.c, epdfb_pixels.c, epdfb_check.c) takes from the
 * kernel, in userspace: types, lists, a hash table, locks, completions, a
 * clock in jiffies of a millisecond, delayed work run by a thread, 64-bit
 * division, snprintf, scnprintf and string_lower. The model's sources build
 * unchanged against it (the headers in panel-model/shim/linux include
 * this file), so the preview and the driver share one model.
 */
#ifndef VL_KERNEL_SHIM_H
#define VL_KERNEL_SHIM_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
/* as the kernel's, whatever the architecture: the model prints them with %llu */
typedef unsigned long long u64;
typedef int32_t s32;
typedef long long s64;

#define U64_MAX       UINT64_MAX
#define NSEC_PER_MSEC 1000000ULL
#define HZ            1000
#define GFP_KERNEL    0
#define WQ_UNBOUND    0
#define ERESTARTSYS   512
#define __user
#define __must_check
/* one program, no modules: nothing to export */
#define EXPORT_SYMBOL_NS_GPL(sym, ns) extern __typeof__(sym) sym

#define ARRAY_SIZE(a)                   (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b)                       ((a) < (b) ? (a) : (b))
#define max(a, b)                       ((a) > (b) ? (a) : (b))
#define min_t(type, a, b)               min((type)(a), (type)(b))
#define max_t(type, a, b)               max((type)(a), (type)(b))
#define READ_ONCE(x)                    __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)                __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* the model's loops let others run in the kernel; threads need no help */
#define cond_resched() \
	do {           \
	} while (0)
#define lockdep_assert_held(lock) ((void)(lock))

static inline u64
div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64
div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64
div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

/*
 * As snprintf, but the length written, not the length wanted: at most
 * size - 1, 0 when size is 0. Texts built of several pieces add them up
 * without running past their buffer.
 */
int scnprintf(char *buf, size_t size, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* ASCII only, as the kernel's; dst may be src. */
static inline void
string_lower(char *dst, const char *src)
{
	do {
		char c = *src;
		*dst++ = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	} while (*src++);
}

static inline void *
kzalloc(size_t size, int gfp)
{
	(void)gfp;
	return calloc(1, size);
}

/* No fences in userspace: nothing for lockdep to check. */
static inline bool
dma_fence_begin_signalling(void)
{
	return true;
}

static inline void
dma_fence_end_signalling(bool cookie)
{
	(void)cookie;
}

static inline void *
kvmalloc(size_t size, int gfp)
{
	(void)gfp;
	return malloc(size);
}

static inline void *
kvzalloc(size_t size, int gfp)
{
	(void)gfp;
	return calloc(1, size);
}

static inline void *
kvcalloc(size_t n, size_t size, int gfp)
{
	(void)gfp;
	return calloc(n, size);
}

/* Copies what fits, always NUL-terminated: the length, or -E2BIG when cut. */
static inline long
strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (size == 0)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return (long)len;
}

/* The first byte from s on, of n, that is not c; NULL if none is. */
static inline void *
memchr_inv(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p != (unsigned char)c)
			return (void *)p;
	return NULL;
}

#define kfree  free
#define kvfree free

/* The monotonic clock. */
u64 ktime_get_ns(void);
/* unsigned long, as the kernel's: its deadlines wrap with it on 32-bit machines */
#define jiffies ((unsigned long)(ktime_get_ns() / NSEC_PER_MSEC))

static inline unsigned long
msecs_to_jiffies(unsigned int ms)
{
	return ms;
}

static inline unsigned long
nsecs_to_jiffies(u64 ns)
{
	return (unsigned long)(ns / NSEC_PER_MSEC);
}

/* Whether jiffies value a is after b, across a wrap. */
#define time_after(a, b) ((long)((b) - (a)) < 0)

/* Doubly linked lists, circular, with a head that is no entry. */
struct list_head {
	struct list_head *next, *prev;
};

static inline void
INIT_LIST_HEAD(struct list_head *head)
{
	head->next = head;
	head->prev = head;
}

static inline bool
list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline void
list_add_tail(struct list_head *entry, struct list_head *head)
{
	entry->prev = head->prev;
	entry->next = head;
	head->prev->next = entry;
	head->prev = entry;
}

/* After head: at the head of a list, or just after an entry. */
static inline void
list_add(struct list_head *entry, struct list_head *head)
{
	list_add_tail(entry, head->next);
}

static inline void
list_del(struct list_head *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	entry->next = entry->prev = NULL;
}

static inline void
list_move_tail(struct list_head *entry, struct list_head *head)
{
	list_del(entry);
	list_add_tail(entry, head);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_for_each_entry(pos, head, member)                                                 \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
		pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_reverse(pos, head, member)                                         \
	for (pos = list_entry((head)->prev, __typeof__(*pos), member); &pos->member != (head); \
		pos = list_entry(pos->member.prev, __typeof__(*pos), member))
#define list_for_each_entry_continue(pos, head, member)                                            \
	for (pos = list_entry(pos->member.next, __typeof__(*pos), member); &pos->member != (head); \
		pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                  \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),  \
	    n = list_entry(pos->member.next, __typeof__(*pos), member); \
		&pos->member != (head);                                 \
		pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

/* Singly headed lists, for hash buckets. */
struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define INIT_HLIST_HEAD(head) ((head)->first = NULL)

static inline void
hlist_add_head(struct hlist_node *node, struct hlist_head *head)
{
	node->next = head->first;
	if (head->first)
		head->first->pprev = &node->next;
	head->first = node;
	node->pprev = &head->first;
}

static inline void
hlist_del(struct hlist_node *node)
{
	*node->pprev = node->next;
	if (node->next)
		node->next->pprev = node->pprev;
	node->next = NULL;
	node->pprev = NULL;
}

static inline void
hlist_del_init(struct hlist_node *node)
{
	if (node->pprev)
		hlist_del(node);
}

#define hlist_entry_safe(ptr, type, member) ((ptr) ? container_of(ptr, type, member) : NULL)
#define hlist_for_each_entry_safe(pos, n, head, member)                       \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*pos), member); \
		pos && ((n = pos->member.next), 1);                           \
		pos = hlist_entry_safe(n, __typeof__(*pos), member))

/* Hash tables of 2^bits buckets. */
#define DECLARE_HASHTABLE(name, bits) struct hlist_head name[1 << (bits)]
#define HASH_SIZE(name)               (ARRAY_SIZE(name))
#define hash_bucket(name, key)        (&(name)[(u64)(key) % HASH_SIZE(name)])
#define hash_init(name)                                                        \
	do {                                                                   \
		for (size_t hash_i_ = 0; hash_i_ < HASH_SIZE(name); hash_i_++) \
			INIT_HLIST_HEAD(&(name)[hash_i_]);                     \
	} while (0)
#define hash_add(name, node, key) hlist_add_head(node, hash_bucket(name, key))
#define hash_for_each_possible_safe(name, obj, tmp, member, key) \
	hlist_for_each_entry_safe(obj, tmp, hash_bucket(name, key), member)
#define hash_for_each_safe(name, bkt, tmp, obj, member)   \
	for ((bkt) = 0; (bkt) < HASH_SIZE(name); (bkt)++) \
	hlist_for_each_entry_safe(obj, tmp, &(name)[bkt], member)

/* Sleeping locks; the model never takes its spinlock here. */
struct mutex {
	pthread_mutex_t m;
};

#define mutex_init(lock)    pthread_mutex_init(&(lock)->m, NULL)
#define mutex_destroy(lock) pthread_mutex_destroy(&(lock)->m)
#define mutex_lock(lock)    pthread_mutex_lock(&(lock)->m)
#define mutex_unlock(lock)  pthread_mutex_unlock(&(lock)->m)
typedef struct mutex spinlock_t;

/* One waiter's wake-up, completed once. */
struct completion {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool done;
};

void init_completion(struct completion *c);
void complete(struct completion *c);
/* Jiffies left (at least 1) once completed, 0 when timeout passed first. */
long wait_for_completion_interruptible_timeout(struct completion *c, unsigned long timeout);

/* Delayed work, run by its workqueue's thread at its due time. */
struct work_struct {
	void (*func)(struct work_struct *work);
};

struct workqueue_struct;

struct delayed_work {
	struct work_struct work;
	struct workqueue_struct *wq;
	struct delayed_work *next; /* in wq's list, once queued the first time */
	u64 due_ns;
	bool pending, running;
};

#define INIT_DELAYED_WORK(dw, fn)               \
	do {                                    \
		memset((dw), 0, sizeof(*(dw))); \
		(dw)->work.func = (fn);         \
	} while (0)
#define to_delayed_work(w) container_of(w, struct delayed_work, work)

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active);
void destroy_workqueue(struct workqueue_struct *wq);
/* (Re)arms dw to run delay jiffies from now. */
bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, unsigned long delay);
bool cancel_delayed_work(struct delayed_work *dw);
/* Also waits for a run in progress to end. */
bool cancel_delayed_work_sync(struct delayed_work *dw);

#endif
