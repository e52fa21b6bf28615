// The codec names the containers' own tags stand for, spelled as ffprobe's `codec_name` spells
// them, because media.csv compares what the reader finds with the service's listing, which ffprobe
// made (prober.ts parseProbe, media-check.ts sameCodec). Three namespaces: ISO-BMFF/QuickTime
// sample entry types, AVI (and Matroska V_MS/VFW/FOURCC) BITMAPINFOHEADER compressions, and
// Matroska CodecIDs. A tag not listed here is given as-is, lower-cased, so that an unusual file
// still gets a name a person can look up (and the listing check can only flag it, not crash).

/** ISO-BMFF/QuickTime visual sample entry types (case-sensitive, as in the file). */
const SAMPLE_ENTRIES: Record<string, string> = {
  avc1: 'h264', avc2: 'h264', avc3: 'h264', avc4: 'h264', ai12: 'h264', ai13: 'h264', ai15: 'h264', ai16: 'h264', ai1p: 'h264', ai1q: 'h264', ai52: 'h264', ai53: 'h264', ai55: 'h264', ai56: 'h264', ai5p: 'h264', ai5q: 'h264',
  hvc1: 'hevc', hev1: 'hevc', dvh1: 'hevc', dvhe: 'hevc',
  vp08: 'vp8', vp09: 'vp9', av01: 'av1',
  mp4v: 'mpeg4', xvid: 'mpeg4', '3iv2': 'mpeg4', DIVX: 'mpeg4', XVID: 'mpeg4', FMP4: 'mpeg4',
  jpeg: 'mjpeg', mjpa: 'mjpeg', AVDJ: 'mjpeg', dmb1: 'mjpeg', mjpb: 'mjpegb',
  apch: 'prores', apcn: 'prores', apcs: 'prores', apco: 'prores', ap4h: 'prores', ap4x: 'prores',
  mp1v: 'mpeg1video', m1v1: 'mpeg1video', m1v: 'mpeg1video', mp2v: 'mpeg2video', m2v1: 'mpeg2video',
  s263: 'h263', h263: 'h263', H263: 'h263', 'png ': 'png', 'rle ': 'qtrle', 'raw ': 'rawvideo', '2vuy': 'rawvideo', yuv2: 'rawvideo',
  SVQ1: 'svq1', SVQ3: 'svq3', 'mjp2': 'jpeg2000', 'vc-1': 'vc1', drac: 'dirac', AVdn: 'dnxhd', AVdh: 'dnxhd', 'dvc ': 'dvvideo', dvcp: 'dvvideo', dvpp: 'dvvideo', dv5n: 'dvvideo', dv5p: 'dvvideo', dvh5: 'dvvideo', dvh6: 'dvvideo', dvhp: 'dvvideo', dvhq: 'dvvideo',
  Hap1: 'hap', Hap5: 'hap', HapY: 'hap', cvid: 'cinepak', 'smc ': 'smc', rpza: 'rpza', tga: 'targa', tiff: 'tiff', icod: 'aic', 'VP6F': 'vp6f', FFV1: 'ffv1', CFHD: 'cfhd',
};

/** MPEG-2/XDCAM/HDV families of QuickTime tags, named by prefix (hdv1..hdvf, xdv1.., xd51.., mx3p...). */
const MPEG2_PREFIXES = ['hdv', 'xdv', 'xd5', 'xdh', 'xdhd', 'mx3', 'mx4', 'mx5', 'AVmp'];

/** MPEG-4 systems objectTypeIndication (esds) of the visual codecs ffmpeg maps (isom.c ff_mp4_obj_type). */
const OBJECT_TYPES: Record<number, string> = {
  0x20: 'mpeg4', 0x21: 'h264', 0x23: 'hevc', 0x60: 'mpeg2video', 0x61: 'mpeg2video', 0x62: 'mpeg2video', 0x63: 'mpeg2video', 0x64: 'mpeg2video', 0x65: 'mpeg2video',
  0x6a: 'mpeg1video', 0x6c: 'mjpeg', 0x6e: 'jpeg2000', 0xa3: 'vc1', 0xa4: 'dirac', 0xb1: 'vp9', 0xb2: 'av1',
};

/** AVI biCompression / fccHandler, upper-cased (ffmpeg matches these tags case-insensitively). */
const FOURCCS: Record<string, string> = {
  FMP4: 'mpeg4', XVID: 'mpeg4', DIVX: 'mpeg4', DX50: 'mpeg4', MP4V: 'mpeg4', MP4S: 'mpeg4', M4S2: 'mpeg4', DIV5: 'mpeg4', DIV6: 'mpeg4', '3IV2': 'mpeg4', RMP4: 'mpeg4', BLZ0: 'mpeg4', UMP4: 'mpeg4', WV1F: 'mpeg4', SEDG: 'mpeg4', GEOX: 'mpeg4', SN40: 'mpeg4', VIDM: 'mpeg4', XVIX: 'mpeg4', DM4V: 'mpeg4', FVFW: 'mpeg4',
  H264: 'h264', X264: 'h264', AVC1: 'h264', DAVC: 'h264', VSSH: 'h264', Q264: 'h264', V264: 'h264', GAVC: 'h264', UMSV: 'h264', AVIN: 'h264',
  HEVC: 'hevc', H265: 'hevc', X265: 'hevc', HVC1: 'hevc', HEV1: 'hevc',
  MJPG: 'mjpeg', AVRN: 'mjpeg', LJPG: 'mjpeg', JPGL: 'mjpeg', MJLS: 'mjpeg', JPEG: 'mjpeg', IJPG: 'mjpeg', AVI1: 'mjpeg', ACDV: 'mjpeg', QIVG: 'mjpeg', SLMJ: 'mjpeg', CJPG: 'mjpeg', DMB1: 'mjpeg', MJPA: 'mjpeg',
  VP80: 'vp8', VP90: 'vp9', AV01: 'av1',
  MPG1: 'mpeg1video', PIM1: 'mpeg1video', MPG2: 'mpeg2video', MPEG: 'mpeg2video', MMES: 'mpeg2video', MX5P: 'mpeg2video', EM2V: 'mpeg2video', DVR: 'mpeg2video',
  DIV3: 'msmpeg4v3', MP43: 'msmpeg4v3', DIV4: 'msmpeg4v3', DIV2: 'msmpeg4v3', COL1: 'msmpeg4v3', MP42: 'msmpeg4v2', MP41: 'msmpeg4v1', MPG4: 'msmpeg4v1', DIV1: 'msmpeg4v1',
  WMV1: 'wmv1', WMV2: 'wmv2', WMV3: 'wmv3', WVC1: 'vc1', WMVA: 'vc1', H263: 'h263', U263: 'h263', S263: 'h263', I263: 'h263i',
  DVSD: 'dvvideo', DV25: 'dvvideo', DV50: 'dvvideo', DVHD: 'dvvideo', CDVC: 'dvvideo', FFV1: 'ffv1', HFYU: 'huffyuv', FFVH: 'ffvhuff', CVID: 'cinepak', MJ2C: 'jpeg2000', THEO: 'theora', CFHD: 'cfhd', APCN: 'prores', APCH: 'prores', TSCC: 'tscc', CRAM: 'msvideo1', MSVC: 'msvideo1', IV50: 'indeo5', IV41: 'indeo4', IV31: 'indeo3', IV32: 'indeo3', VP60: 'vp6', VP61: 'vp6', VP62: 'vp6', VP6F: 'vp6f', VP70: 'vp7', UYVY: 'rawvideo', YUY2: 'rawvideo', I420: 'rawvideo', YV12: 'rawvideo', PNG1: 'png', MPNG: 'png', MAGY: 'magicyuv', UTVY: 'utvideo', ULRG: 'utvideo', ULY0: 'utvideo', ULY2: 'utvideo', LAGS: 'lagarith', ZMBV: 'zmbv', FLV1: 'flv1', SNOW: 'snow', DRAC: 'dirac', AASC: 'aasc', VCR1: 'vcr1', MSZH: 'mszh', ZLIB: 'zlib',
};

/** Matroska CodecIDs (exact; V_MS/VFW/FOURCC and V_QUICKTIME carry their tag in CodecPrivate). */
const CODEC_IDS: Record<string, string> = {
  'V_MPEG4/ISO/AVC': 'h264', 'V_MPEGH/ISO/HEVC': 'hevc', 'V_MPEGI/ISO/VVC': 'vvc', V_VP8: 'vp8', V_VP9: 'vp9', V_AV1: 'av1',
  'V_MPEG4/ISO/ASP': 'mpeg4', 'V_MPEG4/ISO/SP': 'mpeg4', 'V_MPEG4/ISO/AP': 'mpeg4', 'V_MPEG4/MS/V3': 'msmpeg4v3',
  V_MPEG1: 'mpeg1video', V_MPEG2: 'mpeg2video', V_MJPEG: 'mjpeg', V_THEORA: 'theora', V_PRORES: 'prores', V_FFV1: 'ffv1', V_DIRAC: 'dirac',
  V_UNCOMPRESSED: 'rawvideo', 'V_REAL/RV10': 'rv10', 'V_REAL/RV20': 'rv20', 'V_REAL/RV30': 'rv30', 'V_REAL/RV40': 'rv40', V_SNOW: 'snow',
};

/** A table's own entry (never one of Object.prototype's, whatever the file names). */
const lookup = (table: Record<string, string>, key: string): string | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

/** A tag as text: printable ASCII, trimmed, lower-cased, so an unknown one can still be shown. */
function plain(tag: string): string {
  return tag.replace(/[^\x20-\x7e]/g, '').trim().toLowerCase();
}

export function codecOfSampleEntry(type: string): string {
  const known = lookup(SAMPLE_ENTRIES, type);
  if (known) return known;
  if (MPEG2_PREFIXES.some((p) => type.startsWith(p))) return 'mpeg2video';
  return plain(type);
}

export function codecOfObjectType(oti: number): string | undefined {
  return Object.hasOwn(OBJECT_TYPES, oti) ? OBJECT_TYPES[oti] : undefined;
}

/** An AVI compression fourcc (BI_RGB, 0, is raw pictures). */
export function codecOfFourcc(fourcc: string): string | undefined {
  if (fourcc === '\0\0\0\0' || fourcc === 'DIB ' || fourcc === 'RGB ') return 'rawvideo';
  return lookup(FOURCCS, fourcc.toUpperCase());
}

export function codecOfFourccOrTag(fourcc: string): string {
  return codecOfFourcc(fourcc) ?? plain(fourcc);
}

export function codecOfMatroskaId(id: string): string | undefined {
  return lookup(CODEC_IDS, id);
}

/** Matroska's fallback for an unknown CodecID: its last path part, as a name a person can look up. */
export function plainCodecId(id: string): string {
  return plain(id.replace(/^V_/, '').split('/').pop() ?? id);
}
