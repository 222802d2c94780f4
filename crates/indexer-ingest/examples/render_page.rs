//! Renders one page of a PDF to a PNG, to look at pages while checking the parser.
//!
//! `cargo run -p indexer-ingest --example render_page -- FILE PAGE OUT.png [DPI]`

use pdfium_render::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, page, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: render_page FILE PAGE OUT.png [DPI]");
        std::process::exit(2);
    };
    let dpi: f32 = rest.first().and_then(|d| d.parse().ok()).unwrap_or(72.0);
    let pdfium = indexer_ingest::pdfium().expect("pdfium");
    let doc = pdfium.load_pdf_from_file(file, None).expect("open");
    let page = doc
        .pages()
        .get(page.parse::<i32>().expect("page number") - 1)
        .expect("page");
    let cfg = PdfRenderConfig::new().scale_page_by_factor(dpi / 72.0);
    let img = page.render_with_config(&cfg).unwrap().as_image().unwrap();
    img.to_rgb8().save(out).unwrap();
    println!("{} x {} pt", page.width().value, page.height().value);
}
