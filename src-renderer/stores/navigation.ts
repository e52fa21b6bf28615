import { create } from 'zustand';

export type Workspace = 'delivery' | 'recruiter';
export type CollectionTab = 'overview' | 'sync' | 'sets';

export type Route =
  | { screen: 'collections' }
  | { screen: 'account' }
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
