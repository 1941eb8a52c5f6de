/* os_frame.bpf.h — the framing of one side of a stream, for os.bpf.c
 * only (included once, there, after the stream's state and emit_frame):
 * a call's bytes, piece by piece, through the netstring headers, a frame
 * event at each body's end.  Apart so that each file stays small. */
#ifndef IPCSTAMP_RECORD_OS_FRAME_BPF_H
#define IPCSTAMP_RECORD_OS_FRAME_BPF_H

/* Up to 32 bytes of a call's buffer where a header starts: the header
 * (at most 11 bytes: 9 digits, ':', the tag) and the payload's head after
 * it, in one read from user memory. */
struct hdr {
  u8 b[32];
  u64 nb;            /* bytes in b */
  u64 ubuf, at, n;   /* the call's buffer, the header's offset, its bytes */
};

/* The loops below run through bpf_loop: the verifier checks a callback
 * once, where it walks an unrolled loop's every iteration and every path
 * through it (that was 54,000 instructions for on_exit, most of the
 * collector's ~0.1 s to load its programs). */
struct hstep {
  struct stream *s;
  const struct hdr *h;
  const struct io *io;
  u64 k, taken;
};

/* One header byte (j); returns 1 to stop.  x->taken: bytes taken so far. */
static int header_step(u32 j, struct hstep *x) {
  struct stream *s = x->s;
  const struct io *io = x->io;
  const struct hdr *h = x->h;
  u64 i;
  u8 c;
  if (!s || !io || !h || j >= x->k)
    return 1;
  c = h->b[j & 15];
  if (s->phase == PH_HDR) {
    if (c >= '0' && c <= '9') {
      if (s->ndig == 0) {
        s->first_enter = io->enter;
        s->first_exit = io->exit;
        s->calls = 1;
      }
      x->taken = j + 1;
      if (++s->ndig > 9 || (s->ndig == 2 && s->len == 0)) {
        s->phase = PH_UNSYNC;
        return 1;
      }
      s->len = s->len * 10 + (c - '0');
      return 0;
    }
    x->taken = j + 1;
    if (c != ':' || s->ndig == 0) {
      s->phase = PH_UNSYNC;
      return 1;
    }
    s->phase = PH_TAG;
    if (s->len == 0) { /* "0:," has no tag: a frame of its own */
      s->tag = 0;
      s->head_len = 0;
      s->phase = PH_BODY;
      s->remaining = 1;
      return 1;
    }
    return 0;
  }
  if (s->phase == PH_TAG) {
    u64 hl = h->n - (h->at + j + 1);
    x->taken = j + 1;
    s->tag = c;
    if (hl > OS_HEAD)
      hl = OS_HEAD;
    /* Only the frame's own bytes: a short frame's head stops at its
     * payload's end (the call's next bytes are the comma and the next
     * frame, or nothing the frame holds). */
    if (hl > s->len - 1)
      hl = s->len - 1;
    __builtin_memset(s->head, 0, sizeof s->head);
    /* The head is in b already, whole: b holds min(32, the call's bytes
     * from the header on), and the tag is at most its 16th byte. */
    if (hl > h->nb - (j + 1))
      hl = 0;
    s->head_len = hl;
    for (i = 0; i < OS_HEAD; i++) {
      if (i >= hl)
        break;
      s->head[i] = h->b[(j + 1 + i) & 31];
    }
    s->phase = PH_BODY;
    s->remaining = s->len; /* the rest of the payload, and the comma */
    return 1;
  }
  return 1; /* a body begins: not a header byte */
}

/* The header bytes h->b (k of them, k <= 16, at offset h->at of the
 * call's h->n bytes at h->ubuf): the digits, ':' and the tag.  Returns how many were
 * taken; a byte that breaks the framing makes the stream unsynced (it
 * resyncs at the start of a later call).  Global functions are verified
 * once each, not once per path into them: that keeps the verifier's work
 * within its bounds. */
__noinline int header(struct stream *s, const struct hdr *h, u64 k,
                      const struct io *io) {
  struct hstep x = {.s = s, .h = h, .io = io, .k = k, .taken = 0};
  if (!s || !h || !io)
    return 0;
  bpf_loop(16, header_step, &x, 0);
  return x.taken;
}

struct fstep {
  struct stream *s;
  const struct io *io;
  u64 buf, n, off;
  struct hdr h;  /* the piece's bytes last read at a header (h.nb 0: none) */
};

/* The payload's first bytes came in a call of their own (a tag written
 * alone): the head goes on from the piece at buf (avail bytes). */
static __always_inline void head_more(struct stream *s, u64 buf, u64 avail) {
  u64 have = s->head_len & (OS_HEAD - 1), more = OS_HEAD - have;
  if (more > avail)
    more = avail;
  if (more > s->remaining - 1)
    more = s->remaining - 1;
  /* head has room for 2 * OS_HEAD: the verifier sees have + more within
   * it from each one's own bound. */
  if (more > 0 && more <= OS_HEAD &&
      bpf_probe_read_user(s->head + have, more, (const void *)buf) == 0)
    s->head_len = have + more;
}

/* One step of a piece: a body's end (a frame) or a header; 1 to stop. */
static int feed_step(u32 i, struct fstep *x) {
  struct stream *s = x->s;
  const struct io *io = x->io;
  u64 off = x->off, n = x->n;
  if (!s || !io || off >= n)
    return 1;
  if (s->phase == PH_BODY) {
    u64 avail = n - off;
    char c = 0;
    /* The piece starts where the head stops (its payload byte
     * len - remaining is the head's next): a head cut short by its call's
     * end goes on here, never one cut short by the frame's own end. */
    if (s->head_len < OS_HEAD && s->remaining > 1 &&
        s->len - s->remaining == s->head_len)
      head_more(s, x->buf + off, avail);
    if (s->remaining > avail) {
      s->remaining -= avail;
      return 1;
    }
    off += s->remaining;
    x->off = off;
    s->remaining = 0;
    /* The comma: in the bytes read at the header when the frame is short
     * (most of a delivery's frames are), else read on its own. */
    if (x->h.nb && off - 1 >= x->h.at && off - 1 < x->h.at + x->h.nb)
      c = x->h.b[(off - 1 - x->h.at) & 31];
    else
      bpf_probe_read_user(&c, 1, (const void *)(x->buf + off - 1));
    if (c != ',') {
      s->phase = PH_UNSYNC;
      return 1;
    }
    emit_frame(s, io);
    s->phase = PH_HDR;
    s->ndig = 0;
    s->len = 0;
    return 0;
  }
  if (s->phase == PH_UNSYNC)
    return 1;
  {
    u64 k = n - off;
    if (k > 32)
      k = 32;
    x->h.nb = 0;
    if (k == 0 || bpf_probe_read_user(x->h.b, k, (const void *)(x->buf + off)) != 0) {
      s->phase = PH_UNSYNC;
      return 1;
    }
    x->h.nb = k;
    x->h.ubuf = x->buf;
    x->h.at = off;
    x->h.n = n;
    x->off = off + header(s, &x->h, k > 16 ? 16 : k, io);
  }
  return 0;
}

/* One contiguous piece of a call's bytes: n at buf, in stream order. */
__noinline int feed(struct stream *s, u64 buf, u64 n, const struct io *io) {
  struct fstep x = {.s = s, .io = io, .buf = buf, .n = n, .off = 0, .h = {}};
  if (!s || !buf || !io)
    return 0;
  bpf_loop(12, feed_step, &x, 0);
  return 0;
}

#endif
