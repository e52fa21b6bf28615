// Seeded pseudo-random numbers: the demo data must be identical for the same seed on every
// machine and every start, so nothing here may touch Math.random or the clock.

/** mulberry32: tiny, fast, good enough for demo data (not for anything secret). */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Random {
  next(): number;
  int(minInclusive: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
  hex(length: number): string;
  chance(probability: number): boolean;
}

export function createRandom(seed: number): Random {
  const next = createPrng(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    hex: (length) => {
      let out = '';
      while (out.length < length) out += Math.floor(next() * 0x100000000).toString(16).padStart(8, '0');
      return out.slice(0, length);
    },
    chance: (p) => next() < p,
  };
}

/** Mixes several integers into one 32-bit seed (for per-file and per-block variation). */
export function mixSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
  }
  return h;
}
