//! Whether a page's text layer reads as text. A font without a correct map from its glyphs to
//! Unicode gives a text layer whose characters are not the ones printed: Knuth's fonts set
//! through some PDF producers come out as dingbats ("P❡♥❛❧✐③❡❞ ❧❡❛st sq✉❛r❡s" for
//! "Penalized least squares"), subset fonts as control or private-use characters, re-encoded
//! fonts as letters of the wrong script. Such a page is read by OCR instead, like a page
//! without a text layer.
//!
//! The rule is **symbols in place of letters**: characters of the blocks such glyphs fall
//! into (controls, enclosed alphanumerics, miscellaneous symbols, dingbats, private use, the
//! replacement character) inside words, and the letters of words that mix Latin and Cyrillic.
//! Math symbols, arrows, Greek, CJK, box drawing and geometric shapes are not among them: a
//! math paper, a Chinese page or a table is made of them. A symbol standing alone (a bullet, a
//! check mark) or repeated in a run (a line drawn with a font, as LaTeX's picture mode does)
//! is not a letter gone wrong and is not counted.
//!
//! Two rules over words were measured and rejected: the share of words among the most common
//! words of seven European languages flags index pages, lists of names and tables of symbols
//! (31 of the 1,556 pages of the test corpus fall below 2%), and the share of the eight most
//! frequent letters catches only some alphabet shifts while real pages come within 0.05 of any
//! useful threshold (code listings, an index of keys). A text layer of wrong letters that are
//! all ordinary letters is therefore not detected.

/// A page whose symbols in place of letters are at least this share of its letters and those
/// symbols has an unreadable text layer. On the test corpus and the eval corpora (4,709
/// pages) ordinary pages stay at or below 0.035; pages of fonts without a Unicode map are
/// above 0.7.
pub const UNREADABLE_SYMBOL_SHARE: f32 = 0.2;
/// ... and has at least this many of them (three icons in words are not a font problem).
const MIN_SYMBOLS: usize = 12;

/// What a page's text is made of, as the rule reads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextLayerCounts {
    /// Letters of any script.
    pub letters: usize,
    /// Characters that stand in place of letters: symbols of the suspect blocks inside words,
    /// and the letters of words that mix Latin and Cyrillic.
    pub symbols: usize,
}

impl TextLayerCounts {
    /// Counts `text` (a page's lines joined by newlines).
    pub fn of(text: &str) -> TextLayerCounts {
        let mut c = TextLayerCounts::default();
        for word in text.split_whitespace() {
            let (mut letters, mut latin, mut cyrillic, mut suspect, mut len) = (0, 0, 0, 0, 0);
            for ch in word.chars() {
                len += 1;
                if is_suspect(ch) {
                    suspect += 1;
                } else if ch.is_alphabetic() {
                    letters += 1;
                    match ch as u32 {
                        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F => latin += 1,
                        0x400..=0x52F => cyrillic += 1,
                        _ => {}
                    }
                }
            }
            c.letters += letters;
            // A symbol standing alone (a bullet, a check mark, an icon) or repeated in a run
            // (a line drawn with a font) is not a letter gone wrong; one beside letters, or
            // among other symbols as a word's letters are, is.
            if suspect > 0 && len > 1 && (letters > 0 || distinct(word) * 2 >= len) {
                c.symbols += suspect;
            }
            if latin > 0 && cyrillic > 0 {
                c.symbols += latin.min(cyrillic);
            }
        }
        c
    }

    /// The share of symbols in place of letters among letters and those symbols.
    pub fn symbol_share(&self) -> f32 {
        let all = self.letters + self.symbols;
        if all == 0 {
            0.0
        } else {
            self.symbols as f32 / all as f32
        }
    }

    /// Whether the counts are those of an unreadable text layer.
    pub fn unreadable(&self) -> bool {
        self.symbols >= MIN_SYMBOLS && self.symbol_share() >= UNREADABLE_SYMBOL_SHARE
    }
}

/// Whether the text of a page's text layer is not the text printed (its characters come from
/// a font without a correct Unicode map); see the module doc for the rule.
pub fn unreadable_text_layer(text: &str) -> bool {
    TextLayerCounts::of(text).unreadable()
}

/// Characters a glyph without a Unicode map is given that no word is made of.
fn is_suspect(ch: char) -> bool {
    matches!(ch as u32,
        // Controls (whitespace among them splits words before this).
        0x00..=0x1F | 0x7F..=0x9F
        // Enclosed alphanumerics, miscellaneous symbols, dingbats.
        | 0x2460..=0x24FF | 0x2600..=0x27BF
        // Miscellaneous symbols and arrows.
        | 0x2B00..=0x2BFF
        // Private use (the basic plane and the two supplementary planes), and the replacement
        // character.
        | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFFFD)
}

/// The number of distinct characters of a word.
fn distinct(word: &str) -> usize {
    let mut chars: Vec<char> = word.chars().collect();
    chars.sort_unstable();
    chars.dedup();
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The text layer of lme4's `PLSvGLS.pdf` as pdfium exports it: the start of pages 1 to 3.
    const PLSVGLS: &str = "\
        P❡♥❛❧✐③❡❞ ❧❡❛st sq✉❛r❡s ✈❡rs✉s ❣❡♥❡r❛❧✐③❡❞ ❧❡❛st sq✉❛r❡s r❡♣r❡s❡♥t❛t✐♦♥s ♦❢ ❧✐♥❡❛r ♠✐①❡❞ ♠♦❞❡❧s ❉♦✉❣❧❛s ❇❛t❡s ❉❡♣❛rt♠❡♥t ♦❢ ❙t❛t✐st✐❝s ❯♥✐✈❡rs✐t② ♦❢ ❲✐s❝♦♥s✐♥\n\
        n✳ ✭❚❤❡ t❡r♠ ✏s♣❤❡r✐❝❛❧✑ r❡❢❡rs t♦ t❤❡ ❢❛❝t t❤❛t ❝♦♥t♦✉rs ♦❢ t❤❡ ❝♦♥❞✐t✐♦♥❛❧ ❞❡♥s✐t② ❛r❡ ❝♦♥❝❡♥tr✐❝ s♣❤❡r❡s✳✮ ❚❤❡ ❝♦♥❞✐t✐♦♥❛❧ ♠❡❛♥✱ E[Y|B = b]✱ ✐s ❛ ❧✐♥❡❛r ❢✉♥❝t✐♦♥ ♦❢ b ❛♥❞ t❤❡ p✲❞✐♠❡♥s✐♦♥❛❧ ✜①❡❞✲❡✛❡❝ts ♣❛r❛♠❡t❡r✱ β✱ E[Y|B = b] = Xβ + Zb, ✭✶✮ ✇❤❡r❡ X ❛♥❞ Z ❛r❡ ❦♥♦✇♥ ♠♦❞❡❧ ♠❛tr✐❝❡s ♦❢ s✐③❡s n×p ❛♥❞ \n\
        ✶✳✷ ❖rt❤♦❣♦♥❛❧ r❛♥❞♦♠ ❡✛❡❝ts ▲❡t ✉s ❞❡✜♥❡ ❛ q✲❞✐♠❡♥s✐♦♥❛❧ r❛♥❞♦♠ ✈❡❝t♦r✱ U✱ ♦❢ ♦rt❤♦❣♦♥❛❧ r❛♥❞♦♠ ❡✛❡❝ts ✇✐t❤ ♠❛r❣✐♥❛❧ ❞✐str✐❜✉t✐♦♥ U ∼ N 0, σ2Iq  ✭✺✮ ❛♥❞✱ ❢♦r ❛ ❣✐✈❡♥ ✈❛❧✉❡ ♦❢ θ✱ ❡①♣r❡ss B ❛s ❛ ❧✐♥❡❛r tr❛♥s❢♦r♠❛t✐♦♥ ♦❢ U✱ B = T (θ)S(θ)U. ✭✻✮ ◆♦t❡ t❤❛t t❤❡ tr❛♥s❢♦r♠❛t✐♦♥ ✭✻✮ ❣✐✈❡s t❤❡ ❞❡s✐r❡❞ ❞✐str✐";

    const ENGLISH: &str = "Penalized least squares versus generalized least squares representations \
        for linear mixed models. The model matrices in a linear mixed model are determined by the \
        formula and by the data frame. The representation of the model used in the lme4 package \
        is as a penalized least squares problem which is solved by the sparse Cholesky \
        decomposition. We show how this relates to the generalized least squares form that is \
        more commonly used in the literature, and why the penalized form is easier to update when \
        the covariance parameters change. Each step of the algorithm is described with its cost, \
        and the examples at the end of the paper compare the two on data sets of several sizes.";

    const GERMAN: &str = "Die Ergebnisse der Untersuchung zeigen, dass die Methode auch bei großen \
        Datenmengen schnell ist. Im Folgenden wird beschrieben, wie die Parameter geschätzt werden \
        und welche Annahmen dafür nötig sind. Für jede Gruppe wird ein eigener Effekt angenommen, \
        der mit den anderen nicht korreliert ist. Die Schätzung erfolgt in zwei Schritten: zuerst \
        werden die festen Effekte bestimmt, dann die Varianzkomponenten. Dabei ist zu beachten, \
        dass die Matrix dünn besetzt ist und nicht vollständig gespeichert werden muss. Das \
        Verfahren wurde an mehreren Beispielen aus der Praxis geprüft.";

    const MATH: &str = "Let Λθ be the relative covariance factor, so that Σθ = σ² ΛθΛθᵀ. For \
        β ∈ ℝᵖ and u ∈ ℝ^q the penalized residual sum of squares is\n\
        r²(θ, β, u) = ‖y − Xβ − ZΛθ u‖² + ‖u‖²\n\
        and its minimiser satisfies (ΛθᵀZᵀZΛθ + I) ũ = ΛθᵀZᵀ(y − Xβ̂). With Lθ the sparse Cholesky \
        factor, LθLθᵀ = ΛθᵀZᵀZΛθ + I, and\n\
        ∂r²/∂β = −2Xᵀ(y − Xβ − ZΛθu) = 0 ⇒ β̂ = (XᵀX)⁻¹Xᵀ(y − ZΛθũ),\n\
        ∑ᵢ αᵢ ≤ ∫₀^∞ e^{−λt} dt = 1/λ, for all λ > 0, ∀ε ∃δ: |x − x₀| < δ → |f(x) − f(x₀)| < ε.\n\
        ∇·E = ρ/ε₀, ∇×B − μ₀ε₀ ∂E/∂t = μ₀J, ⟨ψ|Ĥ|ψ⟩ ≥ E₀, f ∘ g, ⌊x⌋ ≤ x < ⌈x⌉.";

    const CHINESE: &str = "线性混合模型中的模型矩阵由公式和数据框决定。lme4 包中使用的模型表示是一个惩罚\
        最小二乘问题，通过稀疏乔列斯基分解求解。我们展示了这与文献中更常用的广义最小二乘形式的关系，\
        以及为什么惩罚形式在协方差参数变化时更容易更新。算法的每一步都描述了其成本，论文最后的例子\
        在几个不同大小的数据集上比较了这两种方法。";

    const RUSSIAN: &str = "Матрицы модели в линейной смешанной модели определяются формулой и \
        таблицей данных. Представление модели, используемое в пакете lme4, — это задача \
        наименьших квадратов со штрафом, которая решается разреженным разложением Холецкого. Мы \
        показываем, как это связано с обобщённым методом наименьших квадратов, который чаще \
        используется в литературе, и почему форма со штрафом проще обновляется при изменении \
        параметров ковариации.";

    const CODE: &str = "fn main() -> Result<(), Box<dyn Error>> {\n\
        let args: Vec<String> = std::env::args().collect();\n\
        let mut file = File::open(&args[1])?;\n\
        let mut buf = String::new();\n\
        file.read_to_string(&mut buf)?;\n\
        for (i, line) in buf.lines().enumerate() {\n\
            if line.trim_start().starts_with(\"//\") { continue; }\n\
            println!(\"{:>4} {}\", i + 1, line);\n\
        }\n\
        Ok(())\n\
        }\n\
        >> A = [1 2 3; 4 5 6; 7 8 10];\n\
        >> x = A \\ b;  % solve the linear system\n\
        >> plot(x, sin(x), 'r--'); xlabel('time'); ylabel('value');\n\
        function y = smooth(x, n)\n  y = filter(ones(1, n) / n, 1, x);\nend";

    const TABLE: &str = "Year Revenue Cost Margin Growth\n\
        2015 1,204.5 980.2 18.6% 4.1%\n2016 1,298.0 1,021.7 21.3% 7.8%\n\
        2017 1,377.9 1,066.0 22.6% 6.2%\n2018 1,455.2 1,120.4 23.0% 5.6%\n\
        2019 1,530.8 1,190.3 22.2% 5.2%\n2020 1,402.6 1,150.9 17.9% −8.4%\n\
        2021 1,612.3 1,240.1 23.1% 15.0%\n2022 1,744.0 1,318.8 24.4% 8.2%\n\
        Total 11,625.3 9,088.4 21.8% —\n\
        ■ actual □ forecast ● Q1 ○ Q2 ✓ audited ✗ not audited ★ restated";

    #[test]
    fn dingbat_text_of_a_knuth_font_is_unreadable() {
        let c = TextLayerCounts::of(PLSVGLS);
        assert!(c.symbol_share() > 0.5, "{c:?}");
        assert!(unreadable_text_layer(PLSVGLS));
    }

    #[test]
    fn letters_of_another_kind_are_unreadable() {
        // Private-use and control characters in place of letters.
        let pua: String = ENGLISH
            .chars()
            .map(|ch| match ch {
                'a'..='m' => char::from_u32(0xF000 + ch as u32).unwrap(),
                'n'..='s' => char::from_u32(ch as u32 - 0x60).unwrap(),
                _ => ch,
            })
            .collect();
        assert!(unreadable_text_layer(&pua));
        // Latin and Cyrillic letters mixed inside words.
        let mixed = ENGLISH
            .replace('e', "е")
            .replace('a', "а")
            .replace('o', "о");
        assert!(unreadable_text_layer(&mixed));
    }

    #[test]
    fn readable_text_of_every_kind_is_not_flagged() {
        for (name, text) in [
            ("English", ENGLISH),
            ("German", GERMAN),
            ("math", MATH),
            ("Chinese", CHINESE),
            ("Russian", RUSSIAN),
            ("code", CODE),
            ("table", TABLE),
        ] {
            let c = TextLayerCounts::of(text);
            assert!(!c.unreadable(), "{name}: {c:?}");
        }
    }

    #[test]
    fn lines_drawn_with_a_font_are_not_letters() {
        // A picture of LaTeX's picture mode, its lines set in a dingbat font (memoir's manual).
        let picture = "D. PICTURES ✭✭✭✭ ✲ ✭✭✭✭✭✭✭✭✭✭ ✥✥✥✥✥✥✥✥✥✥✥✥✥✥ ✘✘✘✘✘✘✘✘✘✘✘✘✘✘✘✿ \
            ✏✏✏✏✏✏✏✏✏✏✏✏✏✏✏✶ ✦✦✦✦✦✦✦✦✦✦✦✦✦✦ ✟✟✟ ✟✟✟ ✟✟✟ ✟✟✟ ✟✟✟✯ ✧ ✧ ✧ ✧ (0,0) (100,50) \
            The picture environment draws lines of these slopes with the line fonts.";
        let c = TextLayerCounts::of(picture);
        assert!(!c.unreadable(), "{c:?}");
    }

    #[test]
    fn glyph_codes_as_control_characters_are_unreadable() {
        // A subset font without a map: its glyph numbers come out as control characters.
        let codes: String = ENGLISH
            .chars()
            .map(|ch| match ch {
                'a'..='z' => char::from_u32(0x0E + (ch as u32 - 'a' as u32) % 18).unwrap(),
                _ => ch,
            })
            .collect();
        let c = TextLayerCounts::of(&codes);
        assert!(c.unreadable(), "{c:?}");
    }

    proptest! {
        /// Readable text stays readable with any number of standalone bullets and icons, and
        /// with a few symbols inside words (a ligature in private use, a stray dingbat).
        #[test]
        fn bullets_and_a_few_stray_symbols_do_not_flag_a_page(
            bullets in proptest::collection::vec(
                prop_oneof![Just('•'), Just('➢'), Just('✓'), Just('✗'), Just('★'), Just('■'), Just('\u{F0B7}')],
                0..40,
            ),
            strays in 0usize..6,
            seed in any::<u64>(),
        ) {
            let mut words: Vec<String> = ENGLISH.split(' ').map(str::to_string).collect();
            let mut state = seed;
            let mut next = |n: usize| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 33) as usize % n
            };
            for b in &bullets {
                let at = next(words.len() + 1);
                words.insert(at, b.to_string());
            }
            for _ in 0..strays {
                let at = next(words.len());
                words[at].push('\u{FB01}');
                words[at].push('\u{E000}');
            }
            let text = words.join(" ");
            prop_assert!(!unreadable_text_layer(&text), "{:?}", TextLayerCounts::of(&text));
        }

        /// Any text whose letters are mostly dingbats is unreadable, whatever the words.
        #[test]
        fn text_made_mostly_of_dingbats_is_unreadable(
            words in proptest::collection::vec("[a-z]{2,9}", 20..80),
        ) {
            let text: String = words
                .iter()
                .map(|w| {
                    w.chars()
                        .enumerate()
                        .map(|(i, ch)| if i % 3 == 2 { ch } else { char::from_u32(0x2740 + ch as u32 - 'a' as u32).unwrap() })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(" ");
            prop_assert!(unreadable_text_layer(&text), "{:?}", TextLayerCounts::of(&text));
        }
    }
}
