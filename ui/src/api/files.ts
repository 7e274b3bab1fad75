// Files in and out: a picked file becomes an Upload (name + base64 bytes); a Download from the
// engine is saved (browser: a normal download; desktop app: the Downloads folder).

import type { Download, Upload } from "./generated";
import { host } from "./transport";

export function bytesToBase64(bytes: Uint8Array): string {
  let s = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    s += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(s);
}

export function base64ToBytes(b64: string): Uint8Array {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export async function toUpload(file: File): Promise<Upload> {
  const buf = new Uint8Array(await file.arrayBuffer());
  return { name: file.name, base64: bytesToBase64(buf) };
}

export function textUpload(name: string, text: string): Upload {
  return { name, base64: bytesToBase64(new TextEncoder().encode(text)) };
}

/** Save a download. Resolves to a sentence saying where it went. */
export async function saveDownload(d: Download): Promise<string> {
  if (host() === "tauri") {
    const { invoke } = await import("@tauri-apps/api/core");
    const path = await invoke<string>("save_download", { download: d });
    return `Saved ${d.file_name} to ${path}.`;
  }
  const blob = new Blob([base64ToBytes(d.base64) as BlobPart], { type: d.mime });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = d.file_name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return `Downloaded ${d.file_name}.`;
}
