// How much text the dataset files (manifest.csv, SHA256SUMS, media.csv, participants.csv,
// croissant.json) gather before handing a chunk on to be written. Below 128 KiB on purpose: a
// string or buffer larger than that is a "large object" to V8 (and a fresh mmap to glibc's
// malloc), placed on pages of its own that the process touches for the first time, one page fault
// per 4 KiB. Smaller chunks reuse the young generation's and the malloc heap's pages, which are
// touched already. Where freed memory goes back to the host (these VMs: a fresh page costs about
// 21 us), 100 MB of text cost 1.3-1.5 s in 256 KiB chunks against 0.17-0.25 s in 64 KiB ones
// (issue 21: the end of a first sync at 100,000 sets writes about 270 MB of such text).
export const TEXT_CHUNK_CHARS = 64 * 1024;
