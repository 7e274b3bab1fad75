// Names remembered on this computer, one per role, so a person types theirs once. A name is only
// ever offered in the role it was typed in: the auditor's name is never put in the approver's field,
// because a decision recorded under someone else's name is worse than an empty field. A field that
// was filled in this way says so under it.

/** The roles a name is recorded in. */
export type NameRole = "author" | "auditor" | "approver" | "draftDecider" | "adjudicator";

// The first two keys and the adjudicator's are those used before names were kept apart by role,
// so a name typed there is still offered in the same role.
const NAME_KEYS: Record<NameRole, string> = {
  author: "psebench.author",
  auditor: "psebench.auditor",
  approver: "psebench.name.approver",
  draftDecider: "psebench.name.draft-decider",
  adjudicator: "psebench.review.adjudicator",
};

/** How the hint names the role: "Filled in with the name you last used …". */
const ROLE_WORDS: Record<NameRole, string> = {
  author: "as author (writing, importing or editing cards)",
  auditor: "to record a card's audit decision",
  approver: "to approve a policy extraction",
  draftDecider: "to accept or reject a draft",
  adjudicator: "as adjudicator",
};

/** The name last used in this role ("" when none): never another role's name. */
export function rememberedName(role: NameRole): string {
  try {
    return localStorage.getItem(NAME_KEYS[role]) ?? "";
  } catch {
    return "";
  }
}

/** Remember a name for this role (blank names are not remembered). */
export function rememberName(role: NameRole, name: string) {
  try {
    if (name.trim()) localStorage.setItem(NAME_KEYS[role], name.trim());
  } catch {
    /* private mode: remembered for this session only */
  }
}

/** The sentence under a name field that was filled in from memory. */
export function prefilledText(role: NameRole): string {
  return `Filled in with the name you last used ${ROLE_WORDS[role]}. You can change it.`;
}

/**
 * The hint under a name field: while the field still holds the remembered name, it says where the
 * name came from (after the field's own hint); otherwise the field's own hint.
 */
export function nameHint(role: NameRole, prefilled: string, value: string, hint?: string): string | undefined {
  if (prefilled && value === prefilled) return hint ? `${hint} ${prefilledText(role)}` : prefilledText(role);
  return hint;
}
