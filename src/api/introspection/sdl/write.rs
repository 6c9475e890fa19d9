//! Writing the document as SDL, and for each line what it declares ([`Item`]), so that a
//! validation error's line leads back to what to remove.

use super::{Doc, InputValue, Item, Kind, TypeDef};

impl Doc {
    /// Writes the SDL, and for each line what it declares.
    pub(super) fn write(&self) -> (String, Vec<Item>) {
        let mut out = Writer { text: String::with_capacity(self.types.len() * 400), lines: Vec::new() };
        if self.types.iter().any(|t| t.one_of) {
            out.line("directive @oneOf on INPUT_OBJECT", Item::None);
        }
        let mut schema = String::new();
        description(&mut schema, self.description.as_deref());
        schema.push_str("schema {");
        for (what, name) in [("query", &self.query), ("mutation", &self.mutation), ("subscription", &self.subscription)]
        {
            if let Some(name) = name {
                schema.push_str(&format!(" {what}: {name}"));
            }
        }
        schema.push_str(" }");
        out.line(&schema, Item::None);
        for (d, directive) in self.directives.iter().enumerate() {
            let mut head = String::new();
            description(&mut head, directive.description.as_deref());
            head.push_str("directive @");
            head.push_str(&directive.name);
            let mut tail = String::new();
            if directive.repeatable {
                tail.push_str(" repeatable");
            }
            tail.push_str(" on ");
            tail.push_str(&directive.locations.join(" | "));
            if directive.args.is_empty() {
                out.line(&format!("{head}{tail}"), Item::Directive(d));
            } else {
                out.line(&format!("{head}("), Item::Directive(d));
                for (a, arg) in directive.args.iter().enumerate() {
                    out.input_value(arg, Item::DirectiveArg(d, a));
                }
                out.line(&format!("){tail}"), Item::Directive(d));
            }
        }
        for (t, ty) in self.types.iter().enumerate() {
            out.type_def(t, ty);
        }
        (out.text, out.lines)
    }
}

/// Writes a description as a string on the same line as what it describes.
fn description(out: &mut String, text: Option<&str>) {
    if let Some(text) = text {
        string(out, text);
        out.push(' ');
    }
}

/// A GraphQL string literal.
fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn deprecated(out: &mut String, deprecation: &Option<Option<String>>) {
    match deprecation {
        None => {}
        Some(None) => out.push_str(" @deprecated"),
        Some(Some(reason)) => {
            out.push_str(" @deprecated(reason: ");
            string(out, reason);
            out.push(')');
        }
    }
}

struct Writer {
    text: String,
    lines: Vec<Item>,
}

impl Writer {
    /// One line (or more, when a default value spans lines), all declaring `item`.
    fn line(&mut self, text: &str, item: Item) {
        self.text.push_str(text);
        self.text.push('\n');
        let count = 1 + text.bytes().filter(|b| *b == b'\n').count();
        self.lines.extend(std::iter::repeat_n(item, count));
    }

    fn input_value(&mut self, value: &InputValue, item: Item) {
        let mut line = String::from("  ");
        description(&mut line, value.description.as_deref());
        line.push_str(&value.name);
        line.push_str(": ");
        value.ty.write(&mut line);
        if let Some(default) = &value.default {
            line.push_str(" = ");
            line.push_str(default);
        }
        deprecated(&mut line, &value.deprecation);
        self.line(&line, item);
    }

    fn type_def(&mut self, t: usize, ty: &TypeDef) {
        let mut head = String::new();
        description(&mut head, ty.description.as_deref());
        head.push_str(match ty.kind {
            Kind::Scalar => "scalar ",
            Kind::Object => "type ",
            Kind::Interface => "interface ",
            Kind::Union => "union ",
            Kind::Enum => "enum ",
            Kind::InputObject => "input ",
        });
        head.push_str(&ty.name);
        match ty.kind {
            Kind::Scalar => {
                if let Some(url) = &ty.specified_by {
                    head.push_str(" @specifiedBy(url: ");
                    string(&mut head, url);
                    head.push(')');
                }
                self.line(&head, Item::Type(t));
            }
            Kind::Union => {
                head.push_str(" = ");
                head.push_str(&ty.members.join(" | "));
                self.line(&head, Item::Type(t));
            }
            Kind::Object | Kind::Interface => {
                if !ty.interfaces.is_empty() {
                    head.push_str(" implements ");
                    head.push_str(&ty.interfaces.join(" & "));
                }
                head.push_str(" {");
                self.line(&head, Item::Type(t));
                for (f, field) in ty.fields.iter().enumerate() {
                    let mut line = String::from("  ");
                    description(&mut line, field.description.as_deref());
                    line.push_str(&field.name);
                    if !field.args.is_empty() {
                        line.push('(');
                        self.line(&line, Item::Field(t, f));
                        for (a, arg) in field.args.iter().enumerate() {
                            self.input_value(arg, Item::Arg(t, f, a));
                        }
                        line = String::from("  )");
                    }
                    line.push_str(": ");
                    field.ty.write(&mut line);
                    deprecated(&mut line, &field.deprecation);
                    self.line(&line, Item::Field(t, f));
                }
                self.line("}", Item::Type(t));
            }
            Kind::Enum => {
                head.push_str(" {");
                self.line(&head, Item::Type(t));
                for (v, value) in ty.values.iter().enumerate() {
                    let mut line = String::from("  ");
                    description(&mut line, value.description.as_deref());
                    line.push_str(&value.name);
                    deprecated(&mut line, &value.deprecation);
                    self.line(&line, Item::EnumValue(t, v));
                }
                self.line("}", Item::Type(t));
            }
            Kind::InputObject => {
                if ty.one_of {
                    head.push_str(" @oneOf");
                }
                head.push_str(" {");
                self.line(&head, Item::Type(t));
                for (f, field) in ty.input_fields.iter().enumerate() {
                    self.input_value(field, Item::InputField(t, f));
                }
                self.line("}", Item::Type(t));
            }
        }
    }
}
