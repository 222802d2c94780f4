//! A tree ensemble in LightGBM's text model format (what `Booster.save_model` writes), and its
//! prediction: the sum over the trees of the leaf each row falls in. Written from the format as
//! LightGBM documents and writes it (`tree` header, `feature_names=`, then `Tree=N` blocks with
//! `split_feature`, `threshold`, `decision_type`, `left_child`, `right_child`, `leaf_value`),
//! for the numerical splits a ranker trained on numbers has; a model with categorical splits or
//! linear trees is refused rather than misread.
//!
//! A split sends a row left when its value is at most the threshold. A missing value (NaN) is
//! read as 0 unless the split's missing type is NaN; a split whose missing type is Zero (or NaN)
//! sends a zero (or NaN) value the way its default-left bit says, as LightGBM's
//! `NumericalDecision` does.

/// Why a model text cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the ranking model {what}")]
pub struct ModelError {
    what: String,
}

fn bad(what: impl Into<String>) -> ModelError {
    ModelError { what: what.into() }
}

/// One tree: internal nodes by index (children: `>= 0` another node, `< 0` leaf `!child`).
#[derive(Debug, Clone, PartialEq)]
struct Tree {
    split_feature: Vec<usize>,
    threshold: Vec<f64>,
    decision_type: Vec<u8>,
    left: Vec<i32>,
    right: Vec<i32>,
    leaf_value: Vec<f64>,
}

/// The bits of a split's `decision_type` (LightGBM's `kCategoricalMask`, `kDefaultLeftMask`,
/// and the missing type in bits 2 and 3: 0 none, 1 zero, 2 NaN).
const CATEGORICAL: u8 = 1;
const DEFAULT_LEFT: u8 = 2;
const MISSING_ZERO: u8 = 1;
const MISSING_NAN: u8 = 2;
/// What LightGBM counts as zero (`kZeroThreshold`).
const ZERO_THRESHOLD: f64 = 1e-35;

impl Tree {
    fn leaf(&self, row: &[f64]) -> f64 {
        if self.split_feature.is_empty() {
            return self.leaf_value[0];
        }
        let mut node = 0usize;
        loop {
            let mut v = row
                .get(self.split_feature[node])
                .copied()
                .unwrap_or(f64::NAN);
            let d = self.decision_type[node];
            let missing = (d >> 2) & 3;
            if v.is_nan() && missing != MISSING_NAN {
                v = 0.0;
            }
            let go_left = if (missing == MISSING_ZERO && v.abs() <= ZERO_THRESHOLD)
                || (missing == MISSING_NAN && v.is_nan())
            {
                d & DEFAULT_LEFT != 0
            } else {
                v <= self.threshold[node]
            };
            let child = if go_left {
                self.left[node]
            } else {
                self.right[node]
            };
            if child < 0 {
                return self.leaf_value[!child as usize];
            }
            node = child as usize;
        }
    }
}

/// A tree ensemble: its feature names, in the order a row holds them, and its trees.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeEnsemble {
    features: Vec<String>,
    trees: Vec<Tree>,
}

fn values<T: std::str::FromStr>(key: &str, text: &str) -> Result<Vec<T>, ModelError> {
    text.split_whitespace()
        .map(|v| {
            v.parse()
                .map_err(|_| bad(format!("has a value {v:?} in {key} that is no number")))
        })
        .collect()
}

impl TreeEnsemble {
    /// Reads a model in LightGBM's text format.
    pub fn parse(text: &str) -> Result<TreeEnsemble, ModelError> {
        let mut lines = text.lines().map(str::trim);
        if lines.next() != Some("tree") {
            return Err(bad(
                "is not a LightGBM text model (its first line is not `tree`)",
            ));
        }
        let mut features: Option<Vec<String>> = None;
        let mut trees = Vec::new();
        let mut block: Vec<(&str, &str)> = Vec::new();
        let mut in_tree = false;
        let finish = |block: &mut Vec<(&str, &str)>, trees: &mut Vec<Tree>| {
            if block.is_empty() {
                return Ok(());
            }
            let tree = tree_of(block, trees.len())?;
            trees.push(tree);
            block.clear();
            Ok::<(), ModelError>(())
        };
        for line in lines {
            if line == "end of trees" {
                break;
            }
            if line.starts_with("Tree=") {
                finish(&mut block, &mut trees)?;
                in_tree = true;
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            if in_tree {
                block.push((key, value));
            } else if key == "feature_names" {
                features = Some(value.split_whitespace().map(str::to_string).collect());
            } else if key == "num_class" && value != "1" {
                return Err(bad(format!("has {value} classes, not one score")));
            }
        }
        finish(&mut block, &mut trees)?;
        let features = features.ok_or_else(|| bad("names no features (`feature_names=`)"))?;
        for (i, t) in trees.iter().enumerate() {
            if let Some(&f) = t.split_feature.iter().find(|&&f| f >= features.len()) {
                return Err(bad(format!(
                    "tree {i} splits on feature {f} of {}",
                    features.len()
                )));
            }
        }
        if trees.is_empty() {
            return Err(bad("has no trees"));
        }
        Ok(TreeEnsemble { features, trees })
    }

    /// The feature names, in the order a row holds them.
    pub fn features(&self) -> &[String] {
        &self.features
    }

    /// The number of trees.
    pub fn len(&self) -> usize {
        self.trees.len()
    }

    pub fn is_empty(&self) -> bool {
        self.trees.is_empty()
    }

    /// The model's score of one row (its features in [`TreeEnsemble::features`] order; a
    /// value past the row's end is missing).
    pub fn predict(&self, row: &[f64]) -> f64 {
        self.trees.iter().map(|t| t.leaf(row)).sum()
    }
}

fn tree_of(block: &[(&str, &str)], index: usize) -> Result<Tree, ModelError> {
    let get = |key: &str| block.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let need = |key: &str| get(key).ok_or_else(|| bad(format!("tree {index} has no {key}")));
    let num_leaves: usize = need("num_leaves")?
        .parse()
        .map_err(|_| bad(format!("tree {index} has a bad num_leaves")))?;
    if get("num_cat").is_some_and(|v| v != "0") {
        return Err(bad(format!(
            "tree {index} has categorical splits, which are not read"
        )));
    }
    if get("is_linear").is_some_and(|v| v != "0") {
        return Err(bad(format!("tree {index} is linear, which is not read")));
    }
    let leaf_value: Vec<f64> = values("leaf_value", need("leaf_value")?)?;
    if leaf_value.len() != num_leaves || num_leaves == 0 {
        return Err(bad(format!(
            "tree {index} has {} leaf values for {num_leaves} leaves",
            leaf_value.len()
        )));
    }
    if num_leaves == 1 {
        return Ok(Tree {
            split_feature: Vec::new(),
            threshold: Vec::new(),
            decision_type: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            leaf_value,
        });
    }
    let t = Tree {
        split_feature: values("split_feature", need("split_feature")?)?,
        threshold: values("threshold", need("threshold")?)?,
        decision_type: values("decision_type", need("decision_type")?)?,
        left: values("left_child", need("left_child")?)?,
        right: values("right_child", need("right_child")?)?,
        leaf_value,
    };
    let internal = num_leaves - 1;
    for (key, len) in [
        ("split_feature", t.split_feature.len()),
        ("threshold", t.threshold.len()),
        ("decision_type", t.decision_type.len()),
        ("left_child", t.left.len()),
        ("right_child", t.right.len()),
    ] {
        if len != internal {
            return Err(bad(format!(
                "tree {index} has {len} {key} values for {internal} splits"
            )));
        }
    }
    if t.decision_type.iter().any(|d| d & CATEGORICAL != 0) {
        return Err(bad(format!(
            "tree {index} has categorical splits, which are not read"
        )));
    }
    // Every child is a node after its parent or a leaf: no cycle, nothing out of range.
    for (node, &child) in t.left.iter().chain(&t.right).enumerate() {
        let parent = node % internal;
        let ok = if child < 0 {
            (!child as usize) < num_leaves
        } else {
            (child as usize) < internal && child as usize > parent
        };
        if !ok {
            return Err(bad(format!(
                "tree {index} has a child {child} out of place"
            )));
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of two trees written as LightGBM writes one: a split on f1 with its missing
    /// values to the left, then a stump.
    const MODEL: &str = "tree
version=v4
num_class=1
num_tree_per_iteration=1
label_index=0
max_feature_idx=1
objective=lambdarank
feature_names=f0 f1
feature_infos=[0:1] [0:1]
tree_sizes=1 1

Tree=0
num_leaves=3
num_cat=0
split_feature=1 0
split_gain=1 1
threshold=0.5 0.25
decision_type=10 2
left_child=1 -1
right_child=-3 -2
leaf_value=1 2 3
leaf_weight=1 1 1
leaf_count=1 1 1
internal_value=0 0
internal_weight=0 0
internal_count=3 2
is_linear=0
shrinkage=1


Tree=1
num_leaves=1
num_cat=0
split_feature=
split_gain=
threshold=
decision_type=
left_child=
right_child=
leaf_value=0.5
leaf_weight=
leaf_count=
internal_value=
internal_weight=
internal_count=
is_linear=0
shrinkage=1


end of trees

feature_importances:
f1=1
";

    #[test]
    fn predicts_by_the_splits_and_their_missing_values() {
        let m = TreeEnsemble::parse(MODEL).unwrap();
        assert_eq!(m.features(), ["f0", "f1"]);
        assert_eq!(m.len(), 2);
        // f1 <= 0.5, then f0 <= 0.25: leaf 0 (1), else leaf 1 (2); f1 > 0.5: leaf 2 (3).
        assert_eq!(m.predict(&[0.1, 0.2]), 1.5);
        assert_eq!(m.predict(&[0.9, 0.2]), 2.5);
        assert_eq!(m.predict(&[0.1, 0.9]), 3.5);
        // Node 0's decision type 10 = NaN missing, default left: a NaN f1 goes left.
        assert_eq!(m.predict(&[0.9, f64::NAN]), 2.5);
        // Node 1's decision type 2 = no missing type: a NaN f0 is read as 0 (<= 0.25).
        assert_eq!(m.predict(&[f64::NAN, 0.0]), 1.5);
        // A row too short: its missing features are NaN.
        assert_eq!(m.predict(&[0.9]), 2.5);
    }

    #[test]
    fn refuses_what_it_would_misread() {
        assert!(TreeEnsemble::parse("not a model").is_err());
        let cat = MODEL.replace("decision_type=10 2", "decision_type=11 2");
        assert!(
            TreeEnsemble::parse(&cat)
                .unwrap_err()
                .to_string()
                .contains("categorical")
        );
        let far = MODEL.replace("split_feature=1 0", "split_feature=1 7");
        assert!(TreeEnsemble::parse(&far).is_err());
        let cycle = MODEL.replace("left_child=1 -1", "left_child=1 0");
        assert!(TreeEnsemble::parse(&cycle).is_err());
        let short = MODEL.replace("leaf_value=1 2 3", "leaf_value=1 2");
        assert!(TreeEnsemble::parse(&short).is_err());
        let classes = MODEL.replace("num_class=1", "num_class=3");
        assert!(TreeEnsemble::parse(&classes).is_err());
    }
}
