import { condition, field, intField, stringField } from './object-fields';

describe('object field readers', () => {
  const obj = { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' }, spec: { n: 3, s: 'a' }, status: { conditions: [{ type: 'Ready', status: 'True' }, 'junk'] } };

  it('read nested fields with fallbacks', () => {
    expect(field(obj, 'spec.n')).toBe(3);
    expect(field(obj, 'spec.n.deeper')).toBeUndefined();
    expect(intField(obj, 'spec.s', 7)).toBe(7);
    expect(stringField(obj, 'spec.s')).toBe('a');
    expect(condition(obj, 'Ready')?.status).toBe('True');
    expect(condition(obj, 'Missing')).toBeUndefined();
  });
});
