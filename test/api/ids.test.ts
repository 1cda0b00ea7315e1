import { newId, newSecret } from '../../src/lib/ids';

/**
 * Resource ids (src/lib/ids.ts) come from a pool of random bytes refilled as it runs out: across many refills
 * they keep the spec's format, never repeat, and every base62 character stays about as likely as any other.
 */
describe('resource ids', () => {
  it('stays unique, well formed and evenly spread across many refills of the pool', () => {
    const count = 20_000; // about 120 refills of the 8 KB pool
    const ids = Array.from({ length: count }, () => newId('subscription'));
    expect(new Set(ids).size).toBe(count);
    for (const id of ids) expect(id).toMatch(/^sub_[0-9A-Za-z]{24}$/);

    const seen = new Map<string, number>();
    for (const id of ids) for (const character of id.slice(4)) seen.set(character, (seen.get(character) ?? 0) + 1);
    expect(seen.size).toBe(62);
    const expected = (count * 24) / 62;
    // Chi-square over 61 degrees of freedom: above 120 has a probability below 1e-5 for a fair source.
    const chiSquare = [...seen.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(120);
  });

  it('gives secrets their own fresh bytes, in their own format', () => {
    const secrets = Array.from({ length: 100 }, () => newSecret('whsec'));
    expect(new Set(secrets).size).toBe(100);
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
  });
});
