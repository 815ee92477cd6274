import { Injectable } from '@nestjs/common';
import { BadUserInputError } from '../../common/errors/app-error';
import { elide } from '../../common/text/text-bounds';
import type { ActorContext } from '../../tenancy';
import { checkSummaryRuleDocument, MAX_RULE_DOCUMENTS_PER_TEAM, toolNameProblem } from '../summarizer/summary-rule-document';
import { BUILT_IN_SUMMARY_RULE_REGISTRY, withRuleDocuments } from '../summarizer/built-in-summary-rules';
import type { SummaryRuleDocument, SummaryRuleRegistry } from '../summarizer/summary-rule.types';
import { type StoredSummaryRule, TeamSummaryRulesRepository } from './team-summary-rules.repository';

/**
 * Team-defined summary rules (R-RC-3): an admin sets one document per tool for the team, and the
 * team's snapshots of that tool written afterwards are summarized by it instead of the built-ins.
 * A stored handle is never rebuilt, so a change reaches only the snapshots written after it.
 */
@Injectable()
export class TeamSummaryRulesService {
  constructor(private readonly repository: TeamSummaryRulesRepository) {}

  list(actor: ActorContext): Promise<StoredSummaryRule[]> {
    return this.repository.listForTeam(actor.teamId);
  }

  /** Checked whole before any SQL; a refused document writes nothing. */
  async set(actor: ActorContext, toolName: string, rule: unknown): Promise<StoredSummaryRule> {
    checkToolName(toolName);
    const checked = checkSummaryRuleDocument(rule);
    if (!checked.ok) throw new BadUserInputError(checked.path, checked.message);
    const saved = await this.repository.upsert(actor.teamId, toolName, checked.document, MAX_RULE_DOCUMENTS_PER_TEAM);
    if (saved === null) {
      throw new BadUserInputError(
        'toolName',
        `The team already has summary rules for ${MAX_RULE_DOCUMENTS_PER_TEAM} tools, the limit; delete one (deleteToolSummaryRule) ` +
          `before adding rules for "${elide(toolName, 40)}".`,
      );
    }
    return saved;
  }

  /** True when the team had rules for the tool; its built-in rules, if any, apply again. */
  delete(actor: ActorContext, toolName: string): Promise<boolean> {
    checkToolName(toolName);
    return this.repository.delete(actor.teamId, toolName);
  }

  /** The rules a batch of the team's tool results is summarized with: its documents for these tools in place of the built-ins. */
  async registryFor(actor: ActorContext, toolNames: readonly string[]): Promise<SummaryRuleRegistry> {
    const stored = await this.repository.findForTools(actor.teamId, [...new Set(toolNames)]);
    const documents = new Map<string, SummaryRuleDocument>();
    for (const { toolName, rule } of stored) {
      // Checked when set; read through the same check for its type. One a later version of the
      // check refused would leave its tool to the built-ins rather than fail the write.
      const checked = checkSummaryRuleDocument(rule);
      if (checked.ok) documents.set(toolName, checked.document);
    }
    return withRuleDocuments(BUILT_IN_SUMMARY_RULE_REGISTRY, documents);
  }
}

function checkToolName(toolName: string): void {
  const problem = toolNameProblem(toolName);
  if (problem !== null) throw new BadUserInputError('toolName', problem);
}
