/* A C interface to Concurrency Kit's ck_epoch for smr's C++ adapter (external/ck_epoch.hpp).
 * ck's headers are C only (ck_stack.h does not compile as C++), so the adapter calls these
 * out-of-line wrappers; each is one ck_epoch call. The records live as long as their domain:
 * ck keeps every record ever registered on the epoch's list and recycles unregistered ones. */
#ifndef SMR_CK_EPOCH_SHIM_H
#define SMR_CK_EPOCH_SHIM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of ck_epoch_entry_t (a callback and a stack link); the shim checks it. */
struct smr_ck_entry {
  void* function;
  void* next;
};
typedef void smr_ck_callback(struct smr_ck_entry*);

struct smr_ck_domain;
struct smr_ck_record;

struct smr_ck_domain* smr_ck_domain_create(void);
/* No record may be registered any more: runs every pending callback, then frees the records. */
void smr_ck_domain_destroy(struct smr_ck_domain* d);

/* A recycled record (ck_epoch_recycle) or a new one (ck_epoch_register); NULL if out of memory. */
struct smr_ck_record* smr_ck_attach(struct smr_ck_domain* d);
/* ck_epoch_barrier, then ck_epoch_unregister (which drops whatever is still pending, so the
 * barrier first runs every callback: it waits for every thread inside a section to leave it). */
void smr_ck_detach(struct smr_ck_record* r);
/* ck_epoch_barrier: waits for a grace period and runs every callback deferred on the record. */
void smr_ck_barrier(struct smr_ck_record* r);

void smr_ck_begin(struct smr_ck_record* r);
void smr_ck_end(struct smr_ck_record* r);
void smr_ck_call(struct smr_ck_record* r, struct smr_ck_entry* e, smr_ck_callback* cb);
/* ck_epoch_poll: advances the epoch if it can and runs the callbacks made safe; never waits. */
bool smr_ck_poll(struct smr_ck_record* r);

#ifdef __cplusplus
}
#endif

#endif
