//! What a walk needs of a page, read from the response's bytes without building its JSON: whether
//! the connection is there, its nodes' count and keys, its page information, `count` and the last
//! edge's cursor. An export asks for the next page as soon as it has this; the page's JSON is
//! built afterwards, on the thread that writes it.
//!
//! Only the common shape is read here: a response without `errors`, objects where the query
//! selects objects, a string or null `endCursor`, a boolean `hasNextPage`, a whole `count`.
//! Anything else (a null on the way, an entry in `errors`, a key given twice, a value of another
//! type) gives `None`, and the caller reads the page as JSON as it always did, so a page's
//! outline is never different from what its JSON says.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::query::ConnectionSite;

/// The connection of one page, as the walk needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outline {
    /// Nodes (non-null `node`s of object edges).
    pub nodes: usize,
    /// Edges that are objects.
    pub edges: usize,
    /// Each node's key for the walk's guard ([`super::guard::key_of`]).
    pub keys: Vec<Option<u64>>,
    /// The `cursor` of the last object edge, when a string.
    pub last_edge_cursor: Option<String>,
    /// `pageInfo.hasNextPage`.
    pub has_next_page: Option<bool>,
    /// `pageInfo.endCursor`, when a string.
    pub end_cursor: Option<String>,
    /// The connection's `count`.
    pub count: Option<u64>,
}

/// The outline of the connection `site` locates in the GraphQL response `body`; `None` when the
/// body is not of the common shape (the caller then reads it as JSON).
pub(crate) fn read(body: &[u8], site: &ConnectionSite) -> Option<Outline> {
    let keys = [Some(site.edges_key.as_str()), site.page_info_key.as_deref(), site.count_key.as_deref()];
    let distinct = |a: Option<&str>, b: Option<&str>| a.is_none() || a != b;
    if !(distinct(keys[0], keys[1]) && distinct(keys[0], keys[2]) && distinct(keys[1], keys[2]))
        || site.cursor_key.as_deref() == Some(site.node_key.as_str())
        || (site.has_next_page_key.is_some() && site.has_next_page_key == site.end_cursor_key)
        || site.path.is_empty()
    {
        return None;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let outline = Top { site }.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    outline
}

/// Gives the place of a key among `names` (`None`: another key), without copying it.
struct KeyIn<'n>(&'n [Option<&'n str>]);

impl<'de> DeserializeSeed<'de> for KeyIn<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIn<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|name| *name == Some(key)))
    }
}

/// A key given twice: the JSON reader keeps the last, which the outline does not follow.
fn twice<E: de::Error>() -> E {
    E::custom("a key given twice")
}

/// The response object: `data`, and `errors` only when empty.
struct Top<'s> {
    site: &'s ConnectionSite,
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Option<Outline>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Option<Outline>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a GraphQL response")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut data, mut errors) = (None, false);
        while let Some(key) = map.next_key_seed(KeyIn(&[Some("data"), Some("errors")]))? {
            match key {
                Some(0) if data.is_some() => return Err(twice()),
                Some(0) => data = Some(map.next_value_seed(Step { site: self.site, depth: 0 })?),
                Some(_) if errors => return Err(twice()),
                Some(_) => {
                    map.next_value_seed(NoErrors)?;
                    errors = true;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // No `data` at all: the JSON reader makes it null, and the connection is not there.
        Ok(data.flatten())
    }
}

/// `errors`: only an empty list is read here.
struct NoErrors;

impl<'de> DeserializeSeed<'de> for NoErrors {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NoErrors {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an empty list of errors")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        match seq.next_element::<IgnoredAny>()? {
            None => Ok(()),
            Some(_) => Err(de::Error::custom("the response has errors")),
        }
    }
}

/// The object at `site.path[..depth]` (`data` for 0), on the way to the connection.
struct Step<'s> {
    site: &'s ConnectionSite,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Step<'_> {
    type Value = Option<Outline>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Step<'_> {
    type Value = Option<Outline>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object on the way to the connection")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (site, depth) = (self.site, self.depth);
        let wanted = site.path.get(depth).map(String::as_str);
        let mut found = None;
        while let Some(key) = map.next_key_seed(KeyIn(&[wanted]))? {
            match key {
                Some(_) if found.is_some() => return Err(twice()),
                Some(_) if depth + 1 == site.path.len() => found = Some(map.next_value_seed(Connection { site })?),
                Some(_) => found = Some(map.next_value_seed(Step { site, depth: depth + 1 })?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found.flatten())
    }
}

/// The connection object.
struct Connection<'s> {
    site: &'s ConnectionSite,
}

impl<'de> DeserializeSeed<'de> for Connection<'_> {
    type Value = Option<Outline>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Connection<'_> {
    type Value = Option<Outline>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the connection object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let site = self.site;
        let names = [Some(site.edges_key.as_str()), site.page_info_key.as_deref(), site.count_key.as_deref()];
        let mut outline = Outline::default();
        let mut seen = [false; 3];
        while let Some(key) = map.next_key_seed(KeyIn(&names))? {
            let Some(index) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(twice());
            }
            match index {
                0 => map.next_value_seed(Edges { site, outline: &mut outline })?,
                1 => {
                    let names = [site.has_next_page_key.as_deref(), site.end_cursor_key.as_deref()];
                    (outline.has_next_page, outline.end_cursor) = map.next_value_seed(PageInfo(&names))?;
                }
                _ => outline.count = Some(map.next_value_seed(Count)?),
            }
        }
        Ok(Some(outline))
    }
}

/// `edges`: a list of edge objects.
struct Edges<'s, 'o> {
    site: &'s ConnectionSite,
    outline: &'o mut Outline,
}

impl<'de> DeserializeSeed<'de> for Edges<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Edges<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of edges")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let names = [Some(self.site.node_key.as_str()), self.site.cursor_key.as_deref()];
        while let Some((node, cursor)) = seq.next_element_seed(Edge(&names))? {
            self.outline.edges += 1;
            self.outline.last_edge_cursor = cursor;
            if let Some(key) = node {
                self.outline.nodes += 1;
                self.outline.keys.push(key);
            }
        }
        Ok(())
    }
}

/// One edge object: its node (`None`: missing or null; else the node's key) and its cursor.
struct Edge<'n>(&'n [Option<&'n str>; 2]);

type EdgeOutline = (Option<Option<u64>>, Option<String>);

impl<'de> DeserializeSeed<'de> for Edge<'_> {
    type Value = EdgeOutline;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Edge<'_> {
    type Value = EdgeOutline;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an edge object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut node, mut cursor) = (None, None);
        let mut seen = [false; 2];
        while let Some(key) = map.next_key_seed(KeyIn(self.0))? {
            let Some(index) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(twice());
            }
            if index == 0 {
                node = map.next_value_seed(Node)?;
            } else {
                cursor = Some(map.next_value::<String>()?);
            }
        }
        Ok((node, cursor))
    }
}

/// A node: null, or an object whose `id` (else `ref`) is its key.
struct Node;

impl<'de> DeserializeSeed<'de> for Node {
    type Value = Option<Option<u64>>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node {
    type Value = Option<Option<u64>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a node object or null")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut id, mut reference) = (None, None);
        while let Some(key) = map.next_key_seed(KeyIn(&[Some("id"), Some("ref")]))? {
            let slot = match key {
                Some(0) => &mut id,
                Some(_) => &mut reference,
                None => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if slot.is_some() {
                return Err(twice());
            }
            *slot = Some(map.next_value::<Value>()?);
        }
        let key = id.filter(|v| !v.is_null()).or_else(|| reference.filter(|v| !v.is_null()));
        Ok(Some(key.as_ref().map(super::guard::key_hash)))
    }
}

/// `pageInfo`: `hasNextPage` (a boolean) and `endCursor` (a string or null).
struct PageInfo<'n>(&'n [Option<&'n str>; 2]);

impl<'de> DeserializeSeed<'de> for PageInfo<'_> {
    type Value = (Option<bool>, Option<String>);
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PageInfo<'_> {
    type Value = (Option<bool>, Option<String>);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pageInfo object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut has_next, mut end) = (None, None);
        let mut seen = [false; 2];
        while let Some(key) = map.next_key_seed(KeyIn(self.0))? {
            let Some(index) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(twice());
            }
            if index == 0 {
                has_next = Some(map.next_value::<bool>()?);
            } else {
                end = map.next_value::<Option<String>>()?;
            }
        }
        Ok((has_next, end))
    }
}

/// `count`: a whole number, not negative.
struct Count;

impl<'de> DeserializeSeed<'de> for Count {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Count {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a count")
    }
    fn visit_u64<E: de::Error>(self, count: u64) -> Result<u64, E> {
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::guard::key_of;

    fn site() -> ConnectionSite {
        crate::query::locate(
            "{ org { users: paginatedUsers(first: 2) { count pageInfo { hasNextPage endCursor } edges { cursor node { id ref name } } } } }",
            None,
        )
        .expect("a connection")
    }

    /// The outline as the JSON of the page says it, through `site`'s own readers.
    fn from_json(data: &Value, site: &ConnectionSite) -> Option<Outline> {
        site.connection(data)?;
        Some(Outline {
            nodes: site.nodes(data).count(),
            edges: site.edges(data).count(),
            keys: site.nodes(data).map(key_of).collect(),
            last_edge_cursor: site.last_edge_cursor(data).map(str::to_owned),
            has_next_page: site.has_next_page(data),
            end_cursor: site.end_cursor(data).map(str::to_owned),
            count: site.count(data),
        })
    }

    #[test]
    fn the_outline_says_what_the_json_says() {
        let site = site();
        let body = r#"{"data":{"org":{"other":[1,{"a":"}"}],"users":{"count":7,"edges":[
            {"cursor":"c1","node":{"id":"1","ref":"u1","name":"A \"q\""}},
            {"cursor":"c2","node":null},
            {"node":{"ref":5,"name":"B"},"cursor":"c3"}],
            "pageInfo":{"hasNextPage":true,"endCursor":"c3"}}}},"errors":[],"extensions":{"x":1}}"#;
        let outline = read(body.as_bytes(), &site).expect("the common shape");
        let data = serde_json::from_str::<Value>(body).expect("JSON")["data"].clone();
        assert_eq!(Some(outline.clone()), from_json(&data, &site));
        assert_eq!((outline.nodes, outline.edges, outline.count), (2, 3, Some(7)));
        assert_eq!(outline.end_cursor.as_deref(), Some("c3"));
    }

    #[test]
    fn anything_else_is_left_to_the_json_reader() {
        let site = site();
        for body in [
            r#"{"data":null}"#,
            r#"{"data":{"org":null}}"#,
            r#"{"data":{"org":{"users":{"edges":[]}}},"errors":[{"message":"no"}]}"#,
            r#"{"data":{"org":{"users":{"edges":[null]}}}}"#,
            r#"{"data":{"org":{"users":{"edges":[],"edges":[]}}}}"#,
            r#"{"data":{"org":{"users":{"count":-1,"edges":[]}}}}"#,
            r#"{"data":{"org":{"users":{"edges":[]}}}} trailing"#,
            r#"{"data":{"org":{"users":{"edges":[{"node":{"id":"1","id":"2"}}]}}}}"#,
        ] {
            assert_eq!(read(body.as_bytes(), &site), None, "{body}");
        }
        let missing = r#"{"data":{"org":{}}}"#;
        assert_eq!(read(missing.as_bytes(), &site), None, "no connection: said as missing");
    }
}
