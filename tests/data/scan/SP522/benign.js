const raw = Uint8Array.from(atob(b64Data), c => c.charCodeAt(0));
