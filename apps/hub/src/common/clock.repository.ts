import { Injectable } from '@nestjs/common';

/** The time, behind a seam so services can be tested at any instant. */
@Injectable()
export class ClockRepository {
  now(): Date {
    return new Date();
  }
}
