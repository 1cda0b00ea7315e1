import type { Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

/** Who runs an operator command: `--operator NAME` or the OS user and host, and the OS user and host. */
export interface OperatorActor {
  operator: string;
  runAs: string;
  command: string;
}

export interface OperatorChange {
  accountId?: string | null;
  target?: string | null;
  detail?: Prisma.InputJsonObject;
}

/** Records one change an operator command made (operator_actions); call it in the change's transaction. */
export async function recordOperatorAction(db: Db | Tx, actor: OperatorActor, change: OperatorChange): Promise<void> {
  await db.operatorAction.create({
    data: {
      operator: actor.operator,
      runAs: actor.runAs,
      command: actor.command,
      accountId: change.accountId ?? null,
      target: change.target ?? null,
      detail: change.detail ?? {},
    },
  });
}

/** The changes made to `target` (a key, an account, a plan payment), oldest first. */
export function operatorActionsOn(db: Db | Tx, target: string) {
  return db.operatorAction.findMany({ where: { target }, orderBy: { id: 'asc' } });
}
