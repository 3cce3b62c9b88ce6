import type { AttributeField } from '@flotilla/cue';
import { parseRuntimeAttribute, typedValue } from './runtime-attributes';

const field = (body: string): AttributeField => ({ file: 'b.cue', path: 'x', label: 'x', body, line: 3, column: 2, fieldOffset: 0 });

describe('runtime attributes (§3.3)', () => {
  it('takes only runtime:TYPE:NAME bodies', () => {
    expect(parseRuntimeAttribute(field('runtime:string:HOST'))).toMatchObject({ type: 'string', name: 'HOST' });
    expect(parseRuntimeAttribute(field('runtime:string'))).toBeUndefined();
    expect(parseRuntimeAttribute(field('runtime:a:b:c'))).toBeUndefined();
    expect(parseRuntimeAttribute(field('other:string:X'))).toBeUndefined();
  });

  it('types values and names the field on bad input', () => {
    const attr = (t: string) => parseRuntimeAttribute(field(`runtime:${t}:N`))!;
    expect(typedValue(attr('string'), 'a"b')).toEqual({ kind: 'string', text: 'a"b' });
    expect(typedValue(attr('number'), ' 2Mi ')).toEqual({ kind: 'number', text: '2Mi' });
    expect(typedValue(attr('bool'), 'false')).toEqual({ kind: 'bool', text: 'false' });
    expect(typedValue(attr('bool'), 'True')).toMatchObject({ file: 'b.cue', line: 3, message: expect.stringContaining('"True" is not a bool') });
    expect(typedValue(attr('list'), 'x')).toMatchObject({ message: expect.stringContaining('unknown runtime attribute type "list"') });
  });
});
