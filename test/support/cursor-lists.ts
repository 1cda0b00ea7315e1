import { expectStatus, type ApiClient } from './harness';

const idsOf = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

/**
 * A list's cursors (docs/decisions.md §36) through HTTP: `path` (with its filters) walked one item at a time with
 * starting_after gives the same ids as its offset page, newest first (at least two), with the exact itemsTotal
 * and has_more on each page; ending_before the last gives the others; a cursor another account's key sends is
 * 404 naming the parameter, as is an unknown id (`unknownId`); both cursors at once are 400. Answers the ids.
 */
export async function expectCursorWalk(
  api: ApiClient,
  other: ApiClient,
  path: string,
  unknownId: string,
): Promise<string[]> {
  const join = path.includes('?') ? '&' : '?';
  const list = (query: string, client = api) => client.get(`${path}${join}${query}`);
  const newestFirst = idsOf(expectStatus(await list('take=100'), 200));
  expect(newestFirst.length).toBeGreaterThanOrEqual(2);

  const walked = idsOf(expectStatus(await list('take=1'), 200));
  for (;;) {
    const body = expectStatus(await list(`take=1&starting_after=${walked.at(-1)}`), 200);
    expect(body.meta).toEqual({
      take: 1,
      itemsTotal: newestFirst.length,
      pagesTotal: newestFirst.length,
      has_more: walked.length + 1 < newestFirst.length,
    });
    if (body.data.length === 0) break;
    walked.push(...idsOf(body));
  }
  expect(walked).toEqual(newestFirst);
  expect(idsOf(expectStatus(await list(`take=100&ending_before=${newestFirst.at(-1)}`), 200))).toEqual(
    newestFirst.slice(0, -1),
  );

  const theirs = await list(`starting_after=${newestFirst[0]}`, other);
  expect([theirs.status, theirs.body.error?.param]).toEqual([404, 'starting_after']);
  const unknown = await list(`ending_before=${unknownId}`);
  expect([unknown.status, unknown.body.error?.param]).toEqual([404, 'ending_before']);
  expect((await list(`starting_after=${newestFirst[0]}&ending_before=${newestFirst[1]}`)).status).toBe(400);
  return newestFirst;
}
