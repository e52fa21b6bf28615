// A page of the sets in a dataset folder, filtered, for the Sets tab's "In the dataset" view:
// one question to the engine's state (StateQueries.datasetSets: filtered and paged in SQL), so
// nothing here reads manifest.csv or a set.json, and no more than a page is ever in memory.
// The filters' choices (quota groups, set count) take a pass over the sets: kept per folder
// until the engine's records change.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DatasetSetsPage, DatasetSetsQuery } from '../../../src-shared/dataset-sets';
import { mediaVerdict, queryState, rulesOfCollectionJson, stateDir, MEDIA_STAGE, type StateQueries } from '../../sync/engine';

type Choices = ReturnType<StateQueries['datasetChoices']>;

const choicesByFolder = new Map<string, { changes: number; choices: Choices }>();

function choicesOf(dest: string, q: StateQueries): Choices {
  const changes = q.changeCount();
  const known = choicesByFolder.get(dest);
  if (known && known.changes === changes) return known.choices;
  const choices = q.datasetChoices(MEDIA_STAGE);
  choicesByFolder.set(dest, { changes, choices });
  return choices;
}

/** A page of the dataset's sets matching the query, with the choices the filters offer. */
export async function listDatasetSets(dest: string, query: DatasetSetsQuery): Promise<DatasetSetsPage> {
  // The media verdict is judged against the collection's current rules, as media.csv is.
  const rules = rulesOfCollectionJson(await fs.readFile(path.join(dest, 'collection.json'), 'utf8').catch(() => null));
  const { page, perPage, ...filter } = query;
  return queryState(stateDir(dest), (q) => {
    const choices = choicesOf(dest, q);
    const { rows, total } = q.datasetSets(filter, (page - 1) * perPage, perPage, mediaVerdict(rules), choices);
    return { rows, page, perPage, total, ...choices };
  });
}

/** Whether set `id` is in the dataset (the engine holds a verified file of it). */
export function hasDatasetSet(dest: string, id: number): boolean {
  return queryState(stateDir(dest), (q) => q.hasFiles(id));
}
