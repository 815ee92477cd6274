import { type PipeTransform } from '@nestjs/common';
import { BadUserInputError } from '../errors/app-error';
import { UUID_PATTERN } from '../uuid-pattern';

/** Validates an ID argument as a UUID, naming the argument in the error; lower-cases it. */
export class UuidPipe implements PipeTransform<string | null | undefined, string | null> {
  constructor(
    private readonly field: string,
    private readonly optional = false,
  ) {}

  transform(value: string | null | undefined): string {
    if (this.optional && (value === null || value === undefined)) return value as unknown as string;
    if (typeof value !== 'string' || !UUID_PATTERN.test(value)) {
      throw new BadUserInputError(this.field, `${this.field} must be a UUID, e.g. 0b6f2a4e-3c1d-4e8f-9a7b-2c5d6e7f8a9b.`);
    }
    return value.toLowerCase();
  }
}
