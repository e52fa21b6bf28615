// Messages from main (a sync's outcome, a proxy setting the app cannot follow). Info notices go by
// themselves after a few seconds; warnings and errors stay until dismissed. Few at once: the
// oldest goes when another arrives. A notice about an account is shown only while it is active
// and goes when another account becomes active.
import { create } from 'zustand';
import type { EventChannels } from '../../src-shared/ipc-contract';

export type Notice = EventChannels['notice'] & { id: number };

interface NoticeStore {
  notices: Notice[];
  push(notice: EventChannels['notice']): void;
  dismiss(id: number): void;
  /** Another account is active (or none): notices about any account go. */
  forgetAccountNotices(): void;
}

/** Enough to see a sync's outcome next to a warning, few enough to keep the window calm. */
export const MAX_NOTICES = 3;
/** How long an info notice stays (read at a glance; anything to act on is a warning or error). */
export const INFO_NOTICE_MS = 6000;
let nextId = 1;

export const useNotices = create<NoticeStore>((set, get) => ({
  notices: [],
  push(notice) {
    const id = nextId++;
    set((s) => ({ notices: [...s.notices, { ...notice, id }].slice(-MAX_NOTICES) }));
    if (notice.level === 'info') setTimeout(() => get().dismiss(id), INFO_NOTICE_MS);
  },
  dismiss(id) {
    set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
  forgetAccountNotices() {
    set((s) => ({ notices: s.notices.filter((n) => n.accountId === undefined) }));
  },
}));
