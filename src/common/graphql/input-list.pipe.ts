import type { PipeTransform } from '@nestjs/common';
import { validateSync, type ValidationError } from 'class-validator';
import { BadUserInputError } from '../errors/app-error';

function firstMessage(error: ValidationError, path: string): BadUserInputError {
  if (!error.constraints && error.children?.length) {
    const child = error.children[0];
    return firstMessage(child, `${path}.${child.property}`);
  }
  const message = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
  return new BadUserInputError(path, `${path} ${message.replace(new RegExp(`^${error.property} `), '')}.`);
}

/**
 * Validates a list argument item by item with class-validator (Nest's ValidationPipe skips
 * array items), reporting the first violation as `input.3.toolUseId`.
 */
export class InputListPipe<T extends object> implements PipeTransform<unknown[], T[]> {
  constructor(
    private readonly itemType: new () => T,
    private readonly field: string,
  ) {}

  transform(value: unknown[]): T[] {
    return value.map((raw, index) => {
      // A shallow copy onto the class: payloads can be megabytes, so no deep transform.
      const item = Object.assign(new this.itemType(), raw);
      const errors = validateSync(item, { forbidUnknownValues: false });
      if (errors.length > 0) throw firstMessage(errors[0], `${this.field}.${index}.${errors[0].property}`);
      return item;
    });
  }
}
