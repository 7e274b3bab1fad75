// The clause-card document as the card view reads it (FORMATS.md "Clause cards"). Stored cards
// passed the schema; the view still reads them defensively.

export type BoundaryConditionDoc = { value: boolean; meaning: string; corresponding_basic_event_elements: string[] };
export type ElementDoc = {
  field_type: string;
  meaning: string;
  allowed_content: unknown;
  disallowed_content: unknown;
  allowed_values?: string[];
};
export type VariantDoc = {
  missing_variant_id: string;
  summary: string;
  masked_boundary_conditions: string[];
  masked_basic_event_elements: string[];
  why_reasonable_in_real_world: string;
  why_not_classifiable_from_remaining_event_description: string;
};
export type CardDoc = {
  clause_card_id: string;
  clause_card_definition: string;
  clause_id: string;
  event_type: string;
  fixed_fields: {
    governing_legal_basis: { value: string[]; meaning: string };
    boundary_conditions: Record<string, BoundaryConditionDoc>;
  };
  basic_event_elements: Record<string, ElementDoc>;
  constraints_on_basic_event_elements_instantiation: string[];
  missing_information_variants?: VariantDoc[];
};

/** Read a stored card document, filling in empty parts so the view never breaks. */
export function readCard(v: unknown): CardDoc {
  const o = (v && typeof v === "object" ? v : {}) as Partial<CardDoc>;
  const ff = (o.fixed_fields ?? {}) as Partial<CardDoc["fixed_fields"]>;
  const lb = (ff.governing_legal_basis ?? {}) as Partial<CardDoc["fixed_fields"]["governing_legal_basis"]>;
  return {
    clause_card_id: String(o.clause_card_id ?? ""),
    clause_card_definition: String(o.clause_card_definition ?? ""),
    clause_id: String(o.clause_id ?? ""),
    event_type: String(o.event_type ?? ""),
    fixed_fields: {
      governing_legal_basis: { value: Array.isArray(lb.value) ? lb.value.map(String) : [], meaning: String(lb.meaning ?? "") },
      boundary_conditions: ff.boundary_conditions && typeof ff.boundary_conditions === "object" ? ff.boundary_conditions : {},
    },
    basic_event_elements: o.basic_event_elements && typeof o.basic_event_elements === "object" ? o.basic_event_elements : {},
    constraints_on_basic_event_elements_instantiation: Array.isArray(o.constraints_on_basic_event_elements_instantiation)
      ? o.constraints_on_basic_event_elements_instantiation.map(String)
      : [],
    missing_information_variants: Array.isArray(o.missing_information_variants) ? o.missing_information_variants : undefined,
  };
}
