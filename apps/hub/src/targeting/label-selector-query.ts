// The check of a `labelSelector` query parameter: the parser itself, so what passes is what the services read.
import { applyDecorators } from '@nestjs/common';
import { IsString, MaxLength, registerDecorator } from 'class-validator';
import { labelSelectorProblem } from './label-selector-parser';

export const MAX_LABEL_SELECTOR_LENGTH = 4096;

/**
 * A `labelSelector` query parameter: a string of at most 4096 characters that
 * parseLabelSelector reads, refused with the parser's own message (which names
 * the character where reading stopped). No regular expression restates the
 * grammar: the OpenAPI document describes it in words (see validation-keywords).
 */
export function IsLabelSelectorQuery(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: 'must be a string' }),
    MaxLength(MAX_LABEL_SELECTOR_LENGTH, { message: `must be at most ${MAX_LABEL_SELECTOR_LENGTH} characters` }),
    (target: object, propertyName: string | symbol) => {
      let problem = '';
      registerDecorator({
        name: 'isLabelSelectorQuery',
        target: target.constructor,
        propertyName: String(propertyName),
        validator: {
          validate(value: unknown): boolean {
            // other types are IsString's to report; an overlong string MaxLength's, unread
            if (typeof value !== 'string' || value.length > MAX_LABEL_SELECTOR_LENGTH) return true;
            problem = labelSelectorProblem(value) ?? '';
            return problem === '';
          },
          defaultMessage: () => problem,
        },
      });
    },
  );
}
