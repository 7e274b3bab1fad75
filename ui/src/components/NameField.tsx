// A field for a person's name, filled in with the name last used in the same role (never another
// role's), saying so under the field while it holds that name. The field stays editable.

import { useState } from "react";
import { TextInput } from "./Forms";
import { nameHint, NameRole, rememberName, rememberedName } from "../names";

/** The name of a field of this role: starts as the name last used in the role; `remember()` keeps what was typed. */
export function useRememberedName(role: NameRole) {
  const [prefilled] = useState(() => rememberedName(role));
  const [name, setName] = useState(prefilled);
  return { name, setName, prefilled, remember: () => rememberName(role, name) };
}

export function NameField({
  role,
  label,
  value,
  onChange,
  prefilled,
  hint,
  placeholder = "Your name",
}: {
  role: NameRole;
  label: string;
  value: string;
  onChange: (v: string) => void;
  prefilled: string;
  hint?: string;
  placeholder?: string;
}) {
  return <TextInput label={label} value={value} onChange={onChange} placeholder={placeholder} hint={nameHint(role, prefilled, value, hint)} />;
}
