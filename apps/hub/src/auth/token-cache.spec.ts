import type { ApiTokenEntity } from '../database/entities';
import { TokenCache } from './token-cache';

const token = (id: string) => ({ id, name: id, role: 'admin' }) as ApiTokenEntity;

describe('TokenCache', () => {
  it('answers within its TTL and forgets after it', () => {
    const cache = new TokenCache(2000);
    cache.set('h1', token('a'), 1000);
    expect(cache.get('h1', 2999)?.id).toBe('a');
    expect(cache.get('h1', 3000)).toBeUndefined();
    expect(cache.get('h2', 1000)).toBeUndefined();
  });

  it('never keeps a token past its own expiry', () => {
    const cache = new TokenCache(2000);
    cache.set('h1', { ...token('a'), expiresAt: new Date(1500) } as ApiTokenEntity, 1000);
    expect(cache.get('h1', 1499)?.id).toBe('a');
    expect(cache.get('h1', 1500)).toBeUndefined();
  });

  it('evicts a revoked token at once, by id', () => {
    const cache = new TokenCache(2000);
    cache.set('h1', token('a'), 0);
    cache.set('h2', token('b'), 0);
    cache.evict('a');
    expect(cache.get('h1', 1)).toBeUndefined();
    expect(cache.get('h2', 1)?.id).toBe('b');
  });

  it('stays bounded: when full it starts over', () => {
    const cache = new TokenCache(2000, 2);
    cache.set('h1', token('a'), 0);
    cache.set('h2', token('b'), 0);
    cache.set('h3', token('c'), 0);
    expect([cache.get('h1', 1), cache.get('h2', 1), cache.get('h3', 1)?.id]).toEqual([undefined, undefined, 'c']);
  });
});
