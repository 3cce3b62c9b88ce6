import { IsInt, IsString } from 'class-validator';
import { InvalidInputError } from './errors';
import { DtoValidationPipe } from './validation.pipe';
import { NestedObject, Optional } from './validators';

class Inner {
  @IsInt({ message: 'must be an integer' })
  n!: number;
}

class Outer {
  @IsString({ message: 'must be a string' })
  name!: string;

  @Optional()
  @NestedObject(() => Inner)
  inner?: Inner;

  crossFieldProblems(): string[] {
    return this.name === 'forbidden' ? ['name: is reserved'] : [];
  }
}

const pipe = new DtoValidationPipe();
const body = (v: unknown) => pipe.transform(v, { type: 'body', metatype: Outer });
async function problems(v: unknown): Promise<string[]> {
  try {
    await body(v);
  } catch (err) {
    if (err instanceof InvalidInputError) return err.problems;
    throw err;
  }
  return [];
}

describe('DtoValidationPipe', () => {
  it('returns a DTO instance for good input', async () => {
    const dto = await body({ name: 'x', inner: { n: 1 } });
    expect(dto).toBeInstanceOf(Outer);
    expect((dto as Outer).inner).toBeInstanceOf(Inner);
  });

  it('names every problem by path, once per field', async () => {
    expect((await problems({ inner: { n: 'a', extra: 1 }, more: true })).sort()).toEqual([
      'inner.extra: unknown field',
      'inner.n: must be an integer',
      'more: unknown field',
      'name: required',
    ]);
    expect(await problems({ name: null, inner: [] })).toEqual(['name: must not be null', 'inner: must be an object']);
  });

  it('adds cross-field problems', async () => {
    expect(await problems({ name: 'forbidden' })).toEqual(['name: is reserved']);
  });

  it('refuses a body that is not an object, and treats a missing body as empty', async () => {
    expect(await problems([1])).toEqual(['request body: expected a JSON object']);
    expect(await problems(undefined)).toEqual(['name: required']);
  });

  it('leaves path parameters alone', async () => {
    expect(await pipe.transform('abc', { type: 'param', metatype: String })).toBe('abc');
  });
});
