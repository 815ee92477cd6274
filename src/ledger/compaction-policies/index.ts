// TEMP placeholder until the policies branch lands
import { Injectable } from '@nestjs/common';
import type { ActorContext } from '../../tenancy';
export interface ToolCompactionPolicy {
  toolName: string;
  neverCompact: boolean;
  keepLastN: number | null;
  sizeThreshold: number | null;
  clearInputs: boolean;
}
@Injectable()
export class CompactionPoliciesService {
  forTeam(_actor: ActorContext): Promise<ReadonlyMap<string, ToolCompactionPolicy>> {
    return Promise.resolve(new Map());
  }
}
