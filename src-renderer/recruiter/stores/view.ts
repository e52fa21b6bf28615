// Where the recruiter workspace is: its own small navigation, apart from the delivery routes.
import { create } from 'zustand';

export type RecruiterView =
  | { screen: 'jobs' }
  | { screen: 'newJob' }
  | { screen: 'job'; jobId: number }
  | { screen: 'editJob'; jobId: number }
  | { screen: 'champs' };

interface RecruiterViewStore {
  view: RecruiterView;
  go(view: RecruiterView): void;
}

export const useRecruiterView = create<RecruiterViewStore>((set) => ({
  view: { screen: 'jobs' },
  go(view) {
    set({ view });
  },
}));
