/* See ck_epoch_shim.h. */
#include "ck_epoch_shim.h"

#include <ck_epoch.h>
#include <pthread.h>
#include <stdlib.h>

_Static_assert(sizeof(struct smr_ck_entry) == sizeof(ck_epoch_entry_t), "ck_epoch_entry_t layout");
_Static_assert(offsetof(ck_epoch_entry_t, function) == offsetof(struct smr_ck_entry, function), "ck_epoch_entry_t layout");

struct smr_ck_record {
  ck_epoch_record_t record; /* first: the shim converts between the two */
  struct smr_ck_record* next_owned;
};

struct smr_ck_domain {
  ck_epoch_t epoch;
  pthread_mutex_t lock; /* guards `owned`, the list of every record for the destructor */
  struct smr_ck_record* owned;
};

struct smr_ck_domain* smr_ck_domain_create(void) {
  struct smr_ck_domain* d = calloc(1, sizeof *d);
  if (d == NULL) return NULL;
  ck_epoch_init(&d->epoch);
  pthread_mutex_init(&d->lock, NULL);
  return d;
}

void smr_ck_domain_destroy(struct smr_ck_domain* d) {
  struct smr_ck_record* r = d->owned;
  while (r != NULL) {
    struct smr_ck_record* next = r->next_owned;
    /* Every record was detached, which ran its callbacks; nothing is pending. */
    free(r);
    r = next;
  }
  pthread_mutex_destroy(&d->lock);
  free(d);
}

struct smr_ck_record* smr_ck_attach(struct smr_ck_domain* d) {
  ck_epoch_record_t* recycled = ck_epoch_recycle(&d->epoch, NULL);
  if (recycled != NULL) return (struct smr_ck_record*)recycled;
  struct smr_ck_record* r = aligned_alloc(CK_MD_CACHELINE, (sizeof *r + CK_MD_CACHELINE - 1) / CK_MD_CACHELINE * CK_MD_CACHELINE);
  if (r == NULL) return NULL;
  ck_epoch_register(&d->epoch, &r->record, NULL);
  pthread_mutex_lock(&d->lock);
  r->next_owned = d->owned;
  d->owned = r;
  pthread_mutex_unlock(&d->lock);
  return r;
}

void smr_ck_detach(struct smr_ck_record* r) {
  ck_epoch_barrier(&r->record);
  ck_epoch_unregister(&r->record);
}
void smr_ck_barrier(struct smr_ck_record* r) { ck_epoch_barrier(&r->record); }
void smr_ck_begin(struct smr_ck_record* r) { ck_epoch_begin(&r->record, NULL); }
void smr_ck_end(struct smr_ck_record* r) { ck_epoch_end(&r->record, NULL); }
void smr_ck_call(struct smr_ck_record* r, struct smr_ck_entry* e, smr_ck_callback* cb) {
  ck_epoch_call(&r->record, (ck_epoch_entry_t*)e, (ck_epoch_cb_t*)cb);
}
bool smr_ck_poll(struct smr_ck_record* r) { return ck_epoch_poll(&r->record); }
