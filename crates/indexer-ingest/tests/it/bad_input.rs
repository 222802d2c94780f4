//! Every kind of bad input gives a clear error or warning naming the file.

use crate::synthetic::{Item, write_pdf};
use crate::{corpus, no_crops, parse, pdfium};
use indexer_ingest::Error;
use std::fmt::Write as _;

fn rc4(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut s: Vec<u8> = (0..=255).collect();
    let mut j = 0usize;
    for i in 0..256 {
        j = (j + s[i] as usize + key[i % key.len()] as usize) % 256;
        s.swap(i, j);
    }
    let (mut i, mut j) = (0usize, 0usize);
    data.iter()
        .map(|b| {
            i = (i + 1) % 256;
            j = (j + s[i] as usize) % 256;
            s.swap(i, j);
            b ^ s[(s[i] as usize + s[j] as usize) % 256]
        })
        .collect()
}

const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

fn padded(pw: &[u8]) -> Vec<u8> {
    pw.iter().chain(PAD.iter()).take(32).copied().collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02X}");
        s
    })
}

/// A one-page PDF encrypted with the standard security handler (RC4, 40-bit, revision 2) and
/// user password `secret`, written by hand: pdfium cannot write encrypted files. It has no
/// strings or streams, so only the /Encrypt dictionary needs the key.
fn encrypted_pdf() -> Vec<u8> {
    let id = b"0123456789abcdef";
    let p: i32 = -44;
    let o = rc4(&md5::compute(padded(b"owner")).0[..5], &padded(b"secret"));
    let mut k = padded(b"secret");
    k.extend_from_slice(&o);
    k.extend_from_slice(&p.to_le_bytes());
    k.extend_from_slice(id);
    let key = &md5::compute(&k).0[..5];
    let u = rc4(key, &PAD);
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_string(),
        format!(
            "<< /Filter /Standard /V 1 /R 2 /O <{}> /U <{}> /P {p} >>",
            hex(&o),
            hex(&u)
        ),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    let mut x = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for off in offsets {
        let _ = writeln!(x, "{off:010} 00000 n ");
    }
    let idhex = hex(id);
    let _ = write!(
        x,
        "trailer\n<< /Size {} /Root 1 0 R /Encrypt 4 0 R /ID [<{idhex}> <{idhex}>] >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    );
    out.extend_from_slice(x.as_bytes());
    out
}

#[test]
fn encrypted_pdf_is_a_user_error() {
    let bytes = encrypted_pdf();
    // It is a real encrypted PDF: it opens with its password.
    let opened = pdfium()
        .load_pdf_from_byte_slice(&bytes, Some("secret"))
        .unwrap();
    assert_eq!(opened.pages().len(), 1);
    drop(opened);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("locked.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let err = parse(&path, &no_crops(), tmp.path()).unwrap_err();
    assert!(matches!(err, Error::Encrypted { .. }), "{err:?}");
    assert!(err.is_user_error());
    assert!(err.to_string().contains("locked.pdf") && err.to_string().contains("encrypted"));
}

#[test]
fn truncated_and_corrupt_pdfs_fail_or_warn_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(corpus("revtex-apssamp.pdf")).unwrap();
    let path = tmp.path().join("cut.pdf");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    match parse(&path, &no_crops(), tmp.path()) {
        Err(e) => {
            assert!(matches!(e, Error::Corrupt { .. }), "{e:?}");
            assert!(e.to_string().contains("cut.pdf"));
        }
        Ok(doc) => assert!(
            doc.warnings
                .iter()
                .any(|w| w.message.contains("truncated") && w.message.contains("cut.pdf")),
            "{:?}",
            doc.warnings
        ),
    }
    // A header and garbage: no document structure at all.
    let path = tmp.path().join("garbage.pdf");
    std::fs::write(
        &path,
        b"%PDF-1.7\n\x00\x01 not really a pdf at all \xff\xfe",
    )
    .unwrap();
    let err = parse(&path, &no_crops(), tmp.path()).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("garbage.pdf"));
}

#[test]
fn non_pdf_named_pdf_is_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("notes.pdf");
    std::fs::write(&path, "# just markdown\n\nsome text").unwrap();
    let err = parse(&path, &no_crops(), tmp.path()).unwrap_err();
    assert!(matches!(err, Error::NotPdf { .. }), "{err:?}");
    assert!(err.to_string().contains("notes.pdf"));
    let err = parse(&tmp.path().join("missing.pdf"), &no_crops(), tmp.path()).unwrap_err();
    assert!(matches!(err, Error::Io { .. }) && err.to_string().contains("missing.pdf"));
}

#[test]
fn zero_page_pdf_is_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("empty.pdf");
    write_pdf(&path, vec![]);
    let err = parse(&path, &no_crops(), tmp.path()).unwrap_err();
    assert!(matches!(err, Error::NoPages { .. }), "{err:?}");
    assert!(err.to_string().contains("empty.pdf"));
}

#[test]
fn pages_without_text_layer_are_counted_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("scan.pdf");
    write_pdf(
        &path,
        vec![
            (612.0, 792.0, vec![Item::Image(0.0, 0.0, 612.0, 792.0)]),
            (
                612.0,
                792.0,
                vec![Item::Text(
                    72.0,
                    700.0,
                    10.0,
                    "A page with real text on it.",
                )],
            ),
            (612.0, 792.0, vec![Item::Image(0.0, 0.0, 612.0, 792.0)]),
            // Blank pages (chapter ends) have nothing to OCR.
            (612.0, 792.0, vec![]),
        ],
    );
    let doc = parse(&path, &no_crops(), tmp.path()).unwrap();
    assert_eq!(doc.pages, 4);
    assert_eq!(doc.pages_without_text, [1, 3]);
    let w = doc
        .warnings
        .iter()
        .find(|w| w.message.contains("no text layer"))
        .expect("warning");
    assert!(
        w.message.contains("scan.pdf")
            && w.message.contains("2 of 4 pages")
            && w.message.contains("1, 3"),
        "{}",
        w.message
    );
    assert!(crate::all_text(&doc).contains("A page with real text on it."));
}
