// @vitest-environment jsdom
// Sync all waits while a dataset is being verified (started here or, as main reports, elsewhere).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { act } from 'react';
import { CollectionsScreen } from '../../src-renderer/screens/CollectionsScreen';
import { setRendererApi } from '../../src-renderer/api';
import { useCollections } from '../../src-renderer/stores/collections';
import { useSync } from '../../src-renderer/stores/sync';
import { emptySyncView } from '../../src-renderer/stores/sync-view';
import type { CollectionListItem } from '../../src-shared/ipc-contract';
import { FakeRendererApi } from './fake-api';

const ITEM: CollectionListItem = {
  id: 7, title: 'Faces', status: 'active', price_per_set: '1.00', currency: 'EUR', deadline: null, created_at: '2025-01-01T00:00:00Z', dest: '/data/faces', acceptedSets: 3, onDisk: null, lastSync: null,
};

beforeEach(() => {
  setRendererApi(new FakeRendererApi());
  useCollections.setState({ list: [ITEM], listLoading: false, listError: null });
  useSync.setState({ byCollection: {}, verify: {} });
});
afterEach(() => {
  cleanup();
  setRendererApi(null);
});

describe('Sync all while verifying', () => {
  it('is disabled, saying why, while a verify runs, and offered again when it ends', () => {
    render(<CollectionsScreen />);
    const button = screen.getByRole('button', { name: 'Sync all' }) as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    act(() => useSync.setState({ verify: { 7: { running: true, report: null, error: null } } }));
    expect(button.disabled).toBe(true);
    expect(button.title).toBe('A verify is running: Sync all is available when it ends');
    act(() => useSync.setState({ verify: { 7: { running: false, report: null, error: null } } }));
    expect(button.disabled).toBe(false);
    // Started from another window: main's sync:state says verifying.
    act(() => useSync.setState({ byCollection: { 7: { ...emptySyncView(), verifying: true } } }));
    expect(button.disabled).toBe(true);
  });
});
