// Add or edit a model: provider kind first, then what that provider needs. A key typed here goes
// straight to the OS keyring and is never shown again.

import { useState } from "react";
import { useAction } from "../../api/client";
import type { ModelView, ProviderKind } from "../../api/generated";
import { LocalityBadge } from "../../components/Badges";
import { Modal } from "../../components/Dialog";
import { ErrorBanner, toast } from "../../components/Feedback";
import { Checkbox, Field, Select, TextInput } from "../../components/Forms";
import {
  checkForm,
  emptyForm,
  ENV_KEY_HINT,
  formFromView,
  formToRequest,
  hostOf,
  isLoopback,
  KeyMode,
  keyMovesToNewServer,
  LOCAL_PRESETS,
  ModelForm,
  offersSessionKey,
  originOf,
  PROVIDERS,
  providerInfo,
  sessionKeyRequest,
} from "./logic";

export function ModelFormDialog({ existing, takenNames, onClose }: { existing: ModelView | null; takenNames: string[]; onClose: () => void }) {
  const [f, setF] = useState<ModelForm>(() => (existing ? formFromView(existing) : emptyForm()));
  const [tried, setTried] = useState(false);
  const add = useAction("model.add");
  const editing = existing !== null;
  const keyStored = existing?.key_in_keyring ?? false;
  const info = providerInfo(f.kind);
  const errors = checkForm(f, { editing, keyStored });
  if (!editing && takenNames.includes(f.name.trim())) errors.name = "A model with this name is already registered; choose another name or edit that one.";
  const shown = (k: keyof ModelForm) => (tried ? errors[k] : undefined);
  const set = <K extends keyof ModelForm>(k: K, v: ModelForm[K]) => setF((x) => ({ ...x, [k]: v }));

  const base = f.base_url.trim() || info.defaultBase || "";
  const local = f.local || (base !== "" && isLoopback(base));
  const movesKey = keyMovesToNewServer(f, existing);

  const save = async (forSession = false) => {
    setTried(true);
    if (Object.keys(errors).length > 0) return;
    const req = formToRequest(f);
    const r = await add.run(forSession ? sessionKeyRequest(req) : req);
    if (r) {
      if (r.key_for_session_only) toast(`Saved ${r.name}. Its key is held in memory for this session only; it is forgotten when the app closes.`);
      else if (r.key_link_dropped) toast(`Saved ${r.name} without its key: ${r.key_link_dropped}`);
      else toast(editing ? `Saved ${r.name}.` : `Added ${r.name}. Use “Test” to check that it answers.`);
      onClose();
    }
  };

  return (
    <Modal
      title={editing ? `Edit ${existing.name}` : "Add a model"}
      onClose={onClose}
      wide
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" onClick={() => void save()} disabled={add.busy}>
            {add.busy ? "Saving…" : editing ? "Save changes" : "Add model"}
          </button>
        </>
      }
    >
      <ErrorBanner
        error={add.error}
        onDismiss={add.clearError}
        title={offersSessionKey(add.error) ? "No keyring on this computer." : "The model was not saved."}
        action={
          offersSessionKey(add.error) ? (
            <button className="btn btn-small" onClick={() => void save(true)} disabled={add.busy}>
              Keep the key in memory for this session
            </button>
          ) : undefined
        }
      />
      <form
        className="model-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset>
          <legend>Provider</legend>
          <Select
            label="Provider kind"
            value={f.kind}
            onChange={(v) => set("kind", v as ProviderKind)}
            options={PROVIDERS.map((p) => ({ value: p.kind, label: p.label }))}
          />
          <div className="form-grid">
            <TextInput
              label="Name in PSEBench Studio"
              value={f.name}
              onChange={(v) => set("name", v)}
              placeholder="e.g. llama-8b-local"
              hint={editing ? "The name cannot be changed; runs refer to it." : "Short and unique; shown in run lists and results."}
              error={shown("name")}
              autoFocus={!editing}
            />
            <TextInput label={info.modelLabel} value={f.model} onChange={(v) => set("model", v)} placeholder={info.modelPlaceholder} error={shown("model")} hint="Exactly as the provider spells it." />
          </div>
          <TextInput
            label={info.needsBase ? "Server address (base URL)" : "Server address (base URL, optional)"}
            value={f.base_url}
            onChange={(v) => set("base_url", v)}
            placeholder={info.basePlaceholder}
            error={shown("base_url")}
            hint={info.needsBase ? undefined : `Leave empty for ${info.defaultBase}.`}
          />
          {f.kind === "openai-compatible" && (
            <div className="row gap wrap small" role="group" aria-label="Usual addresses of local servers">
              <span className="muted">Usual addresses:</span>
              {LOCAL_PRESETS.map((p) => (
                <button key={p.name} type="button" className="btn btn-small" onClick={() => set("base_url", p.base)}>
                  {p.name} <span className="muted mono">{p.base.replace("http://", "")}</span>
                </button>
              ))}
            </div>
          )}
          {info.apiVersion && (
            <TextInput
              label={info.apiVersion.label}
              value={f.api_version}
              onChange={(v) => set("api_version", v)}
              placeholder={info.apiVersion.placeholder}
              hint={`Leave empty for ${info.apiVersion.placeholder}.`}
            />
          )}
          <Checkbox
            label="This server runs on this computer (or on a machine I control)"
            checked={f.local}
            onChange={(v) => set("local", v)}
            hint="Addresses such as localhost and 127.0.0.1 count as this computer automatically."
          />
          <div className="locality-preview" aria-live="polite">
            {base && <LocalityBadge local={local} />}
            {base ? (
              local ? (
                <span>Case text stays with {hostOf(base)}.</span>
              ) : (
                <span>
                  Case text will be sent to <strong>{hostOf(base)}</strong> when this model is used. You will be asked before each run.
                </span>
              )
            ) : (
              <span className="muted">Enter the address to see where data goes.</span>
            )}
          </div>
        </fieldset>

        <fieldset>
          <legend>API key</legend>
          <div className="radio-row" role="radiogroup" aria-label="Where the key comes from">
            {(
              [
                ["keyring", keyStored ? "Keep or replace the key stored in the keyring" : "Store a key in this computer's keyring"],
                ["env", "Read it from an environment variable"],
                ...(keyStored ? [] : [["none", info.needsKey ? "No key" : "No key (usual for local servers)"]]),
              ] as [KeyMode, string][]
            ).map(([mode, label]) => (
              <label key={mode} className="radio">
                <input type="radio" name="keymode" value={mode} checked={f.keyMode === mode} onChange={() => set("keyMode", mode)} />
                {label}
              </label>
            ))}
          </div>
          {f.keyMode === "keyring" && (
            <>
              {keyStored && (
                <p className="small">
                  <span aria-hidden>✓</span> A key is stored. Leave the field empty to keep it; type a new key to replace it.
                </p>
              )}
              <Field label={keyStored ? "New API key (optional)" : "API key"} error={shown("key")} hint="Saved in the operating system's keyring, never in the database or exports, and never shown again.">
                {(id) => <input id={id} type="password" autoComplete="off" value={f.key} onChange={(e) => set("key", e.target.value)} />}
              </Field>
            </>
          )}
          {f.keyMode === "env" && (
            <TextInput
              label="Environment variable name"
              value={f.keyEnv}
              onChange={(v) => set("keyEnv", v)}
              placeholder="OPENAI_API_KEY"
              error={shown("keyEnv")}
              hint={ENV_KEY_HINT}
            />
          )}
          {f.keyMode === "none" && info.needsKey && <p className="small muted">{info.label} normally needs a key; calls will fail without one.</p>}
          {editing && existing.key_link_dropped && !movesKey && (
            <p className="small warn-text" role="note">
              {existing.key_link_dropped}
            </p>
          )}
          {movesKey && (
            <div role="note" className="key-move">
              <p className="small">
                The address now points to another server ({originOf(base)} instead of {originOf(existing?.base_url ?? "")}). The{" "}
                {f.keyMode === "env" ? "environment variable" : "stored key"} will not be sent there unless you confirm it; without
                confirmation the model is saved with no key.
              </p>
              <Checkbox label={`Use this key with ${originOf(base)}`} checked={f.confirmNewHost} onChange={(v) => set("confirmNewHost", v)} />
            </div>
          )}
        </fieldset>

        <fieldset>
          <legend>Generation, cost and limits</legend>
          <div className="form-grid form-grid-3">
            <TextInput label="Temperature" value={f.temperature} onChange={(v) => set("temperature", v)} error={shown("temperature")} hint="0 gives the most repeatable answers." />
            <TextInput label="Max tokens per reply" value={f.max_tokens} onChange={(v) => set("max_tokens", v)} error={shown("max_tokens")} placeholder="provider default" />
            <span />
            <TextInput label="Price of input ($ per million tokens)" value={f.price_in} onChange={(v) => set("price_in", v)} error={shown("price_in")} placeholder="unknown" />
            <TextInput label="Price of output ($ per million tokens)" value={f.price_out} onChange={(v) => set("price_out", v)} error={shown("price_out")} placeholder="unknown" />
            <span className="hint form-grid-note">Prices let the app estimate a run's cost before it starts. Leave empty if unknown; local models cost nothing.</span>
            <TextInput label="Requests at once" value={f.concurrency} onChange={(v) => set("concurrency", v)} error={shown("concurrency")} hint="Lowered automatically when the provider says to slow down." />
            <TextInput label="Timeout (seconds)" value={f.timeout_secs} onChange={(v) => set("timeout_secs", v)} error={shown("timeout_secs")} />
          </div>
        </fieldset>
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
