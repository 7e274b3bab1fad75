// Which model the run form proposes for each role, and the warnings when the model under test also
// plays another role. The proposal keeps the choices remembered from the last run, but never puts
// one model in two roles while another registered model could take one of them.

export type Roles = { model: string; info: string; judge: string };
export type Role = keyof Roles;

type ModelLite = { name: string; local: boolean };

/** A model for `role`, avoiding the names in the first tier that leaves a choice, then the next. */
function choose(role: Exclude<Role, "model">, models: ModelLite[], preferred: string | undefined, tiers: string[][]): string {
  for (const avoid of tiers) {
    const free = models.filter((m) => !avoid.includes(m.name));
    if (free.length === 0) continue;
    if (preferred && free.some((m) => m.name === preferred)) return preferred;
    // The convention so far: a model named after its role ("judge", "info-…"), then one on this computer.
    const named = free.find((m) => m.name.toLowerCase().includes(role));
    return (named ?? free.find((m) => m.local) ?? free[0]).name;
  }
  return "";
}

/**
 * The roles proposed for a new run: the remembered model under test (else the first model), and for
 * the information provider and the judge the remembered ones unless they repeat a model already
 * chosen while another is free. The judge avoids the model under test before it avoids the provider.
 */
export function proposeRoles(models: ModelLite[], remembered: Partial<Roles>): Roles {
  if (models.length === 0) return { model: "", info: "", judge: "" };
  const model = remembered.model && models.some((m) => m.name === remembered.model) ? remembered.model : models[0].name;
  const info = choose("info", models, remembered.info, [[model], []]);
  const judge = choose("judge", models, remembered.judge, [[model, info], [model], []]);
  return { model, info, judge };
}

/**
 * The roles after the list of models changed: the choices that still exist are kept as they are (even
 * a deliberate repeat); a role whose model is gone gets a proposal that avoids the others.
 */
export function keepRoles(models: ModelLite[], current: Roles): Roles {
  const exists = (n: string) => models.some((m) => m.name === n);
  if (exists(current.model) && exists(current.info) && exists(current.judge)) return current;
  const model = exists(current.model) ? current.model : (models[0]?.name ?? "");
  const info = exists(current.info) ? current.info : choose("info", models, undefined, [[model], []]);
  const judge = exists(current.judge) ? current.judge : choose("judge", models, undefined, [[model, info], [model], []]);
  return { model, info, judge };
}

export type RoleWarning = { role: "info" | "judge"; text: string };

/** Plain-language warnings when the model under test is also the information provider or the judge. */
export function selfRoleWarnings(roles: Roles, modelCount: number): RoleWarning[] {
  if (!roles.model) return [];
  const out: RoleWarning[] = [];
  const other = modelCount > 1 ? "Choose another model for this role if you can." : "Register a second model in Settings to give this role to another model.";
  if (roles.info === roles.model) {
    out.push({
      role: "info",
      text: `${roles.model} is both the model under test and the information provider. The provider sees every fact recorded for the case; when it is the same model it tends to answer with what it would conclude itself and may give away more than was asked (a leak), which makes the cases easier than they are. ${other}`,
    });
  }
  if (roles.judge === roles.model) {
    out.push({
      role: "judge",
      text: `${roles.model} is both the model under test and the judge, so it grades its own rationales. Models tend to rate their own answers favourably, which can inflate M4 (whether the rationales address the boundary conditions). ${other}`,
    });
  }
  return out;
}
