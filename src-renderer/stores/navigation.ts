import { create } from 'zustand';

export type Workspace = 'delivery' | 'recruiter';
export type CollectionTab = 'overview' | 'sync' | 'sets';

export type Route =
  | { screen: 'collections' }
  /** `focus: 'settings'` opens it at the settings (the header's Settings button). */
  | { screen: 'account'; focus?: 'settings' }
  | { screen: 'collection'; collectionId: number; tab: CollectionTab };

interface NavigationStore {
  workspace: Workspace;
  route: Route;
  setWorkspace(workspace: Workspace): void;
  go(route: Route): void;
}

export const useNavigation = create<NavigationStore>((set) => ({
  workspace: 'delivery',
  route: { screen: 'collections' },
  setWorkspace(workspace) {
    set({ workspace });
  },
  go(route) {
    set({ route });
  },
}));
