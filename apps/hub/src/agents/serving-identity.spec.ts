import { hostname } from 'node:os';
import { defaultAgentServerConfig } from '../config/hub-config';
import { servingNames } from './serving-identity';

describe('servingNames', () => {
  it('names the public address\'s host, a specific bind address, this host and loopback, once each', () => {
    const base = defaultAgentServerConfig();
    expect(servingNames({ ...base, publicAddress: 'hub.example.com:443' })).toEqual(['hub.example.com', ...new Set([hostname(), 'localhost', '127.0.0.1', '::1'])]);
    expect(servingNames({ ...base, host: '10.0.0.5', publicAddress: '[fd00::1]:9443' })).toEqual(['fd00::1', '10.0.0.5', ...new Set([hostname(), 'localhost', '127.0.0.1', '::1'])]);
    expect(servingNames({ ...base, host: '127.0.0.1' })).toEqual([...new Set(['127.0.0.1', hostname(), 'localhost', '::1'])]);
  });
});
