import { maskSecrets } from './secret-mask';
import type { KubeObject } from './types';

const secret = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data });

describe('secret masking', () => {
  it('hides values but shows which keys changed', () => {
    const [l, d] = maskSecrets(secret({ same: 'YQ==', old: 'Yg==' }), secret({ same: 'YQ==', old: 'Yw==', added: 'ZA==' }));
    expect(l?.data).toEqual({ same: '***', old: '*** (before)' });
    expect(d?.data).toEqual({ same: '***', old: '*** (after)', added: '*** (after)' });
    expect(JSON.stringify([l, d])).not.toMatch(/YQ==|Yg==|Yw==|ZA==/);
  });

  it('does not touch other kinds or its inputs', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    expect(maskSecrets(cm, cm)[1]).toBe(cm);
    const s = secret({ a: 'YQ==' });
    maskSecrets(s, undefined);
    expect(s.data).toEqual({ a: 'YQ==' });
  });
});
