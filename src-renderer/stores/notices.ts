import { create } from 'zustand';
import type { EventChannels } from '../../src-shared/ipc-contract';

export type Notice = EventChannels['notice'] & { id: number };

interface NoticeStore {
  notices: Notice[];
  push(notice: EventChannels['notice']): void;
  dismiss(id: number): void;
}

// Enough to see a burst of errors, few enough that toasts never cover the window.
const MAX_NOTICES = 5;
let nextId = 1;

export const useNotices = create<NoticeStore>((set) => ({
  notices: [],
  push(notice) {
    set((s) => ({ notices: [...s.notices, { ...notice, id: nextId++ }].slice(-MAX_NOTICES) }));
  },
  dismiss(id) {
    set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
}));
