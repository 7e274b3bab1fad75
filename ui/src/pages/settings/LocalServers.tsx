// Local model servers: look at this computer's usual ports (Ollama, LM Studio, llama.cpp, vLLM),
// list the models they serve, and register one as a local model with a click.

import { useState } from "react";
import { useAction } from "../../api/client";
import type { DiscoverResult } from "../../api/generated";
import { ErrorBanner, Notice, toast } from "../../components/Feedback";
import { Section } from "../../components/Layout";

export function LocalServersSection() {
  const discover = useAction("models.discover");
  const add = useAction("model.add");
  const [found, setFound] = useState<DiscoverResult | null>(null);
  const [extra, setExtra] = useState("");
  const port = Number(extra);
  const extraOk = extra.trim() === "" || (Number.isInteger(port) && port > 0 && port < 65536);
  const look = async () => {
    const r = await discover.run(extra.trim() ? { extra_ports: [port] } : {});
    if (r) setFound(r);
  };
  return (
    <Section
      title="Model servers on this computer"
      actions={
        <button className="btn" disabled={discover.busy || !extraOk} onClick={look}>
          {discover.busy ? "Looking…" : found ? "Look again" : "Find local servers"}
        </button>
      }
    >
      <p className="muted section-intro">
        Models that run on this computer (for example with Ollama, LM Studio, llama.cpp or vLLM) keep every case on the machine and cost nothing per
        call. This looks at the ports those programs use by default.
      </p>
      <div className="field">
        <label htmlFor="local-extra-port">Also try this port (optional)</label>
        <input
          id="local-extra-port"
          inputMode="numeric"
          value={extra}
          onChange={(e) => setExtra(e.target.value)}
          aria-describedby="local-extra-port-hint"
          className="input-short"
        />
        <div id="local-extra-port-hint" className="hint">
          {extraOk ? "For a server started on a port of its own." : "A port is a whole number from 1 to 65535."}
        </div>
      </div>
      <ErrorBanner error={discover.error} onDismiss={discover.clearError} title="The search did not finish." />
      <ErrorBanner error={add.error} onDismiss={add.clearError} title="The model was not added." />
      {found && found.servers.length === 0 && (
        <Notice kind="info" title="No model server answered.">
          Nothing answered on ports {found.checked.join(", ")}. Start your model server and look again, or add it by hand with “Add a model”.
        </Notice>
      )}
      {found &&
        found.servers.map((s) => (
          <div key={s.port} className="local-server">
            <h3>
              {s.product} <span className="muted small">on port {s.port}</span>
            </h3>
            <ul className="plain-list">
              {s.models.map((m) => (
                <li key={m.id} className="row gap between">
                  <code>{m.id}</code>
                  {m.registered_as ? (
                    <span className="muted">registered as {m.registered_as}</span>
                  ) : (
                    <button
                      className="btn btn-small"
                      disabled={add.busy}
                      aria-label={`Add ${m.id} as ${m.suggested_name}`}
                      onClick={async () => {
                        const r = await add.run({ name: m.suggested_name, kind: "openai-compatible", model: m.id, base_url: s.base_url, local: true });
                        if (r) {
                          toast(`Added ${m.suggested_name} (${m.id}) as a local model.`);
                          await look();
                        }
                      }}
                    >
                      Add as {m.suggested_name}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          </div>
        ))}
    </Section>
  );
}
