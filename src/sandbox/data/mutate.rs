//! Validated changes to the data. Each returns the changed record and the webhook events it
//! causes, to be sent after the change is committed.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::inputs::*;
use super::table::global_id;
use super::*;

/// A webhook event a committed change causes.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The event type, e.g. `user.created`.
    pub kind: &'static str,
    /// The event's `data` object.
    pub data: Value,
}

/// Input the service refuses, named by its field: `email: not a valid address`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct Invalid {
    /// The path of the failing input field, e.g. `input.email`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    Invalid { field: field.into(), message: message.into() }
}

type Outcome<T> = Result<(T, Vec<Change>), Invalid>;

fn change(kind: &'static str, data: Value) -> Change {
    Change { kind, data }
}

fn required(field: &str, value: &str) -> Result<(), Invalid> {
    if value.trim().is_empty() { Err(invalid(field, "must not be empty")) } else { Ok(()) }
}

fn check_ref<T: Record + Clone>(table: &Table<T>, what: &str, value: &str) -> Result<(), Invalid> {
    required("input.ref", value)?;
    if value.len() > 255 {
        return Err(invalid("input.ref", "must be at most 255 characters"));
    }
    if table.get(value).is_some() {
        let article = if what.starts_with(['a', 'e', 'i', 'o']) { "an" } else { "a" };
        return Err(invalid("input.ref", format!("{article} {what} with ref '{value}' already exists")));
    }
    Ok(())
}

fn check_email(users: &Table<UserRec>, field: &str, email: &str, own: Option<Seq>) -> Result<(), Invalid> {
    let valid = match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
                && !email.chars().any(char::is_whitespace)
        }
        None => false,
    };
    if !valid {
        return Err(invalid(field, "not a valid address"));
    }
    if users.iter().any(|u| u.email.eq_ignore_ascii_case(email) && Some(u.seq) != own) {
        return Err(invalid(field, format!("a user with email '{email}' already exists")));
    }
    Ok(())
}

fn find<'a, T: Record + Clone>(table: &'a Table<T>, field: &str, what: &str, key: &str) -> Result<&'a T, Invalid> {
    table.get(key).ok_or_else(|| invalid(field, format!("no {what} with ref '{key}'")))
}

/// Adds a user to a group (as manager too when `manager`), keeping both sides in step.
pub(super) fn join(db: &mut Db, group: Seq, user: Seq, manager: bool) -> bool {
    let Some(g) = db.groups.by_seq_mut(group) else { return false };
    let added = insert_sorted(&mut g.members, user);
    if manager {
        insert_sorted(&mut g.managers, user);
    }
    if let Some(u) = db.users.by_seq_mut(user) {
        insert_sorted(&mut u.groups, group);
    }
    added
}

fn leave(db: &mut Db, group: Seq, user: Seq) -> bool {
    let Some(g) = db.groups.by_seq_mut(group) else { return false };
    let removed = remove_sorted(&mut g.members, user);
    remove_sorted(&mut g.managers, user);
    if let Some(u) = db.users.by_seq_mut(user) {
        remove_sorted(&mut u.groups, group);
    }
    removed
}

fn insert_sorted(list: &mut Vec<Seq>, seq: Seq) -> bool {
    match list.binary_search(&seq) {
        Ok(_) => false,
        Err(i) => {
            list.insert(i, seq);
            true
        }
    }
}

fn remove_sorted(list: &mut Vec<Seq>, seq: Seq) -> bool {
    match list.binary_search(&seq) {
        Ok(i) => {
            list.remove(i);
            true
        }
        Err(_) => false,
    }
}

/// The webhook payload of a user.
pub fn user_payload(user: &UserRec) -> Value {
    json!({
        "id": user.id, "ref": user.ref_, "name": user.name, "email": user.email,
        "isActive": user.is_active, "roles": user.roles, "updatedAt": user.updated_at.to_rfc3339(),
    })
}

fn group_payload(group: &GroupRec) -> Value {
    json!({ "id": group.id, "ref": group.ref_, "name": group.name, "memberCount": group.members.len() })
}

impl Db {
    fn extra_values(
        &self,
        fields: &[ExtraFieldInput],
        mut values: Vec<ExtraValue>,
    ) -> Result<Vec<ExtraValue>, Invalid> {
        for (i, field) in fields.iter().enumerate() {
            let path = format!("input.extraFields[{i}]");
            let category =
                find(&self.extra_categories, &format!("{path}.categoryRef"), "extra category", &field.category_ref)?;
            if let Some(value) = &field.value
                && !category.allowed_values.is_empty()
                && !category.allowed_values.contains(value)
            {
                return Err(invalid(
                    format!("{path}.value"),
                    format!(
                        "'{value}' is not allowed for '{}'; allowed: {}",
                        category.ref_,
                        category.allowed_values.join(", ")
                    ),
                ));
            }
            values.retain(|v| v.category != category.seq);
            values.push(ExtraValue { category: category.seq, value: field.value.clone() });
        }
        values.sort_by_key(|v| v.category);
        Ok(values)
    }

    /// `createUser`.
    pub fn create_user(&mut self, input: CreateUserInput, now: DateTime<Utc>) -> Outcome<UserRec> {
        check_ref(&self.users, "user", &input.ref_)?;
        required("input.name", &input.name)?;
        check_email(&self.users, "input.email", &input.email, None)?;
        let extra = self.extra_values(input.extra_fields.as_deref().unwrap_or_default(), Vec::new())?;
        let roles = input.roles.unwrap_or_else(|| vec![Role::Learner]);
        let user = self
            .users
            .insert(|seq| UserRec {
                seq,
                id: global_id("User", seq),
                ref_: input.ref_,
                name: input.name,
                email: input.email,
                is_active: input.is_active.unwrap_or(true),
                roles,
                groups: Vec::new(),
                extra,
                created_at: now,
                updated_at: now,
            })
            .clone();
        let event = change("user.created", user_payload(&user));
        Ok((user, vec![event]))
    }

    /// `updateUser`.
    pub fn update_user(&mut self, ref_: &str, input: UpdateUserInput, now: DateTime<Utc>) -> Outcome<UserRec> {
        let current = find(&self.users, "ref", "user", ref_)?.clone();
        if let Some(name) = &input.name {
            required("input.name", name)?;
        }
        if let Some(email) = &input.email {
            check_email(&self.users, "input.email", email, Some(current.seq))?;
        }
        let extra = match &input.extra_fields {
            Some(fields) => self.extra_values(fields, current.extra.clone())?,
            None => current.extra.clone(),
        };
        let archived = current.is_active && input.is_active == Some(false);
        let Some(user) = self.users.get_mut(ref_) else {
            return Err(invalid("ref", format!("no user with ref '{ref_}'")));
        };
        if let Some(name) = input.name {
            user.name = name;
        }
        if let Some(email) = input.email {
            user.email = email;
        }
        if let Some(active) = input.is_active {
            user.is_active = active;
        }
        if let Some(roles) = input.roles {
            user.roles = roles;
        }
        user.extra = extra;
        user.updated_at = now;
        let user = user.clone();
        let mut events = vec![change("user.updated", user_payload(&user))];
        if archived {
            events.push(change("user.archived", user_payload(&user)));
        }
        Ok((user, events))
    }

    /// `archiveUser`: sets `isActive` to false.
    pub fn archive_user(&mut self, ref_: &str, now: DateTime<Utc>) -> Outcome<UserRec> {
        let user = self.users.get_mut(ref_).ok_or_else(|| invalid("ref", format!("no user with ref '{ref_}'")))?;
        user.is_active = false;
        user.updated_at = now;
        let user = user.clone();
        let event = change("user.archived", user_payload(&user));
        Ok((user, vec![event]))
    }

    /// `deleteUser`: removes the user, their memberships, progress, certificates and enrollments.
    pub fn delete_user(&mut self, ref_: &str) -> Outcome<bool> {
        let user = find(&self.users, "ref", "user", ref_)?.clone();
        for group in &user.groups {
            leave(self, *group, user.seq);
        }
        let progress: Vec<String> =
            self.progress.iter().filter(|p| p.user == user.seq).map(|p| p.key.clone()).collect();
        for key in progress {
            self.progress.remove(&key);
        }
        let certificates: Vec<String> =
            self.certificates.iter().filter(|c| c.user == user.seq).map(|c| c.ref_.clone()).collect();
        for key in certificates {
            self.certificates.remove(&key);
        }
        let enrollments: Vec<String> =
            self.enrollments.iter().filter(|e| e.user == user.seq).map(|e| e.ref_.clone()).collect();
        for key in enrollments {
            self.enrollments.remove(&key);
        }
        self.users.remove(ref_);
        Ok((true, vec![change("user.deleted", json!({ "id": user.id, "ref": user.ref_ }))]))
    }

    /// `createTraining`.
    pub fn create_training(&mut self, input: CreateTrainingInput) -> Outcome<TrainingRec> {
        check_ref(&self.trainings, "training", &input.ref_)?;
        required("input.title", &input.title)?;
        let training = self
            .trainings
            .insert(|seq| TrainingRec {
                seq,
                id: global_id("Training", seq),
                ref_: input.ref_,
                title: input.title,
                kind: input.kind,
                description: input.description,
                is_archived: false,
                grants_certificate: input.grants_certificate.unwrap_or(false),
                modules: Vec::new(),
            })
            .clone();
        Ok((training, Vec::new()))
    }

    /// `updateTraining`.
    pub fn update_training(&mut self, ref_: &str, input: UpdateTrainingInput) -> Outcome<TrainingRec> {
        if let Some(title) = &input.title {
            required("input.title", title)?;
        }
        let training =
            self.trainings.get_mut(ref_).ok_or_else(|| invalid("ref", format!("no training with ref '{ref_}'")))?;
        if let Some(title) = input.title {
            training.title = title;
        }
        if input.description.is_some() {
            training.description = input.description;
        }
        if let Some(grants) = input.grants_certificate {
            training.grants_certificate = grants;
        }
        Ok((training.clone(), Vec::new()))
    }

    /// `archiveTraining`.
    pub fn archive_training(&mut self, ref_: &str) -> Outcome<TrainingRec> {
        let training =
            self.trainings.get_mut(ref_).ok_or_else(|| invalid("ref", format!("no training with ref '{ref_}'")))?;
        training.is_archived = true;
        Ok((training.clone(), Vec::new()))
    }

    /// `recordProgress`: 100 percent completes the training and may issue a certificate.
    pub fn record_progress(
        &mut self,
        user_ref: &str,
        training_ref: &str,
        percent: i32,
        now: DateTime<Utc>,
    ) -> Outcome<ProgressRec> {
        if !(0..=100).contains(&percent) {
            return Err(invalid("percent", format!("must be between 0 and 100 (got {percent})")));
        }
        let user = find(&self.users, "userRef", "user", user_ref)?.clone();
        let training = find(&self.trainings, "trainingRef", "training", training_ref)?.clone();
        if training.is_archived {
            return Err(invalid("trainingRef", format!("the training '{training_ref}' is archived")));
        }
        let key = progress_key(user_ref, training_ref);
        let was_complete = self.progress.get(&key).is_some_and(|p| p.completed_at.is_some());
        let completed_at = match (percent, was_complete) {
            (100, true) => self.progress.get(&key).and_then(|p| p.completed_at),
            (100, false) => Some(now),
            _ => None,
        };
        let record = match self.progress.get_mut(&key) {
            Some(p) => {
                p.percent = percent;
                p.completed_at = completed_at;
                p.clone()
            }
            None => self
                .progress
                .insert(|seq| ProgressRec { seq, key, user: user.seq, training: training.seq, percent, completed_at })
                .clone(),
        };
        let mut events = Vec::new();
        if percent == 100 && !was_complete {
            let kind = match training.kind {
                TrainingKind::Course => "course.completed",
                TrainingKind::LearningJourney => "training.completed",
            };
            let completion = json!({
                "user": { "id": user.id, "ref": user.ref_ },
                "training": { "id": training.id, "ref": training.ref_, "title": training.title, "kind": training.kind },
                "completedAt": now.to_rfc3339(),
            });
            events.push(change(kind, completion));
            if training.grants_certificate {
                let certificate = self
                    .certificates
                    .insert(|seq| CertificateRec {
                        seq,
                        id: global_id("Certificate", seq),
                        ref_: format!("c{seq:05}"),
                        user: user.seq,
                        training: training.seq,
                        issued_at: now,
                        expires_at: None,
                    })
                    .clone();
                events.push(change(
                    "certificate.issued",
                    json!({
                        "certificate": { "id": certificate.id, "ref": certificate.ref_ },
                        "user": { "id": user.id, "ref": user.ref_ },
                        "training": { "id": training.id, "ref": training.ref_ },
                        "issuedAt": now.to_rfc3339(),
                    }),
                ));
            }
            events.push(change(
                "portfolio.updated",
                json!({ "user": { "id": user.id, "ref": user.ref_ }, "training": { "ref": training.ref_ }, "reason": kind }),
            ));
        }
        Ok((record, events))
    }

    /// `createGroup`.
    pub fn create_group(&mut self, input: CreateGroupInput) -> Outcome<GroupRec> {
        check_ref(&self.groups, "group", &input.ref_)?;
        required("input.name", &input.name)?;
        let group = self
            .groups
            .insert(|seq| GroupRec {
                seq,
                id: global_id("Group", seq),
                ref_: input.ref_,
                name: input.name,
                members: Vec::new(),
                managers: Vec::new(),
            })
            .clone();
        let event = change("group.created", group_payload(&group));
        Ok((group, vec![event]))
    }

    /// `updateGroup`.
    pub fn update_group(&mut self, ref_: &str, input: UpdateGroupInput) -> Outcome<GroupRec> {
        if let Some(name) = &input.name {
            required("input.name", name)?;
        }
        let group = self.groups.get_mut(ref_).ok_or_else(|| invalid("ref", format!("no group with ref '{ref_}'")))?;
        if let Some(name) = input.name {
            group.name = name;
        }
        let group = group.clone();
        let event = change("group.updated", group_payload(&group));
        Ok((group, vec![event]))
    }

    /// `deleteGroup`: removes the group and its memberships.
    pub fn delete_group(&mut self, ref_: &str) -> Outcome<bool> {
        let group = find(&self.groups, "ref", "group", ref_)?.clone();
        for member in &group.members {
            leave(self, group.seq, *member);
        }
        self.groups.remove(ref_);
        Ok((true, vec![change("group.deleted", json!({ "id": group.id, "ref": group.ref_ }))]))
    }

    fn user_seqs(&self, user_refs: &[String]) -> Result<Vec<Seq>, Invalid> {
        user_refs
            .iter()
            .enumerate()
            .map(|(i, r)| find(&self.users, &format!("userRefs[{i}]"), "user", r).map(|u| u.seq))
            .collect()
    }

    fn members_changed(&self, group: &GroupRec, added: &[Seq], removed: &[Seq]) -> Change {
        let refs = |seqs: &[Seq]| -> Vec<String> {
            seqs.iter().filter_map(|s| self.users.by_seq(*s)).map(|u| u.ref_.clone()).collect()
        };
        change(
            "group.members_changed",
            json!({ "group": group_payload(group), "added": refs(added), "removed": refs(removed) }),
        )
    }

    /// `addGroupMembers`.
    pub fn add_group_members(&mut self, group_ref: &str, user_refs: &[String], as_managers: bool) -> Outcome<GroupRec> {
        let group = find(&self.groups, "groupRef", "group", group_ref)?.seq;
        let users = self.user_seqs(user_refs)?;
        let added: Vec<Seq> = users.into_iter().filter(|u| join(self, group, *u, as_managers)).collect();
        let group = self.groups.by_seq(group).cloned().ok_or_else(|| invalid("groupRef", "the group was deleted"))?;
        let events = if added.is_empty() { Vec::new() } else { vec![self.members_changed(&group, &added, &[])] };
        Ok((group, events))
    }

    /// `removeGroupMembers`.
    pub fn remove_group_members(&mut self, group_ref: &str, user_refs: &[String]) -> Outcome<GroupRec> {
        let group = find(&self.groups, "groupRef", "group", group_ref)?.seq;
        let users = self.user_seqs(user_refs)?;
        let removed: Vec<Seq> = users.into_iter().filter(|u| leave(self, group, *u)).collect();
        let group = self.groups.by_seq(group).cloned().ok_or_else(|| invalid("groupRef", "the group was deleted"))?;
        let events = if removed.is_empty() { Vec::new() } else { vec![self.members_changed(&group, &[], &removed)] };
        Ok((group, events))
    }

    fn check_offer_times(starts_at: DateTime<Utc>, ends_at: DateTime<Utc>, capacity: i32) -> Result<(), Invalid> {
        if ends_at <= starts_at {
            return Err(invalid("input.endsAt", "must be after startsAt"));
        }
        if capacity < 0 {
            return Err(invalid("input.capacity", format!("must be 0 or more (got {capacity})")));
        }
        Ok(())
    }

    /// `createOffer`.
    pub fn create_offer(&mut self, input: CreateOfferInput) -> Outcome<OfferRec> {
        check_ref(&self.offers, "offer", &input.ref_)?;
        required("input.title", &input.title)?;
        let module_group =
            find(&self.module_groups, "input.moduleGroupRef", "module group", &input.module_group_ref)?.seq;
        Self::check_offer_times(input.starts_at, input.ends_at, input.capacity)?;
        let offer = self
            .offers
            .insert(|seq| OfferRec {
                seq,
                id: global_id("Offer", seq),
                ref_: input.ref_,
                title: input.title,
                module_group,
                starts_at: input.starts_at,
                ends_at: input.ends_at,
                location: input.location,
                capacity: input.capacity,
            })
            .clone();
        Ok((offer, Vec::new()))
    }

    /// `updateOffer`.
    pub fn update_offer(&mut self, ref_: &str, input: UpdateOfferInput) -> Outcome<OfferRec> {
        let current = find(&self.offers, "ref", "offer", ref_)?;
        if let Some(title) = &input.title {
            required("input.title", title)?;
        }
        Self::check_offer_times(
            input.starts_at.unwrap_or(current.starts_at),
            input.ends_at.unwrap_or(current.ends_at),
            input.capacity.unwrap_or(current.capacity),
        )?;
        let seq = current.seq;
        if let Some(capacity) = input.capacity {
            let taken = self.seats_taken(seq);
            if capacity < taken {
                return Err(invalid(
                    "input.capacity",
                    format!("{taken} seats are taken; give at least {taken}, or cancel enrollments first"),
                ));
            }
        }
        let Some(offer) = self.offers.get_mut(ref_) else {
            return Err(invalid("ref", format!("no offer with ref '{ref_}'")));
        };
        if let Some(title) = input.title {
            offer.title = title;
        }
        if let Some(starts_at) = input.starts_at {
            offer.starts_at = starts_at;
        }
        if let Some(ends_at) = input.ends_at {
            offer.ends_at = ends_at;
        }
        if input.location.is_some() {
            offer.location = input.location;
        }
        if let Some(capacity) = input.capacity {
            offer.capacity = capacity;
        }
        Ok((offer.clone(), Vec::new()))
    }

    fn enrollment_event(&self, enrollment: &EnrollmentRec, from: Option<EnrollmentStatus>) -> Change {
        let user = self.users.by_seq(enrollment.user).map(|u| u.ref_.clone());
        let offer = self.offers.by_seq(enrollment.offer).map(|o| o.ref_.clone());
        change(
            "enrollment.status_changed",
            json!({
                "enrollment": { "id": enrollment.id, "ref": enrollment.ref_ },
                "user": { "ref": user }, "offer": { "ref": offer },
                "from": from, "to": enrollment.status, "updatedAt": enrollment.updated_at.to_rfc3339(),
            }),
        )
    }

    /// `enrollUser`: confirmed while seats are free, waitlisted after.
    pub fn enroll_user(&mut self, offer_ref: &str, user_ref: &str, now: DateTime<Utc>) -> Outcome<EnrollmentRec> {
        let offer = find(&self.offers, "offerRef", "offer", offer_ref)?.clone();
        let user = find(&self.users, "userRef", "user", user_ref)?.seq;
        if self
            .enrollments
            .iter()
            .any(|e| e.offer == offer.seq && e.user == user && e.status != EnrollmentStatus::Cancelled)
        {
            return Err(invalid("userRef", format!("the user '{user_ref}' is already enrolled in '{offer_ref}'")));
        }
        let status = if self.seats_taken(offer.seq) < offer.capacity {
            EnrollmentStatus::Confirmed
        } else {
            EnrollmentStatus::Waitlisted
        };
        let enrollment = self
            .enrollments
            .insert(|seq| EnrollmentRec {
                seq,
                id: global_id("Enrollment", seq),
                ref_: format!("e{seq:05}"),
                user,
                offer: offer.seq,
                status,
                updated_at: now,
            })
            .clone();
        let event = self.enrollment_event(&enrollment, None);
        Ok((enrollment, vec![event]))
    }

    /// `updateEnrollmentStatus`.
    pub fn update_enrollment_status(
        &mut self,
        ref_: &str,
        status: EnrollmentStatus,
        now: DateTime<Utc>,
    ) -> Outcome<EnrollmentRec> {
        let current = find(&self.enrollments, "ref", "enrollment", ref_)?.clone();
        if status.takes_seat() && !current.status.takes_seat() {
            let capacity = self.offers.by_seq(current.offer).map_or(0, |o| o.capacity);
            if self.seats_taken(current.offer) >= capacity {
                return Err(invalid("status", format!("the offer is full ({capacity} seats); use WAITLISTED")));
            }
        }
        let Some(enrollment) = self.enrollments.get_mut(ref_) else {
            return Err(invalid("ref", format!("no enrollment with ref '{ref_}'")));
        };
        enrollment.status = status;
        enrollment.updated_at = now;
        let enrollment = enrollment.clone();
        let events = if current.status == status {
            Vec::new()
        } else {
            vec![self.enrollment_event(&enrollment, Some(current.status))]
        };
        Ok((enrollment, events))
    }

    fn check_allowed_values(values: &[String]) -> Result<(), Invalid> {
        for (i, value) in values.iter().enumerate() {
            required(&format!("input.allowedValues[{i}]"), value)?;
            if values[..i].contains(value) {
                return Err(invalid(format!("input.allowedValues[{i}]"), format!("'{value}' is listed twice")));
            }
        }
        Ok(())
    }

    /// `createExtraCategory`.
    pub fn create_extra_category(&mut self, input: CreateExtraCategoryInput) -> Outcome<ExtraCategoryRec> {
        check_ref(&self.extra_categories, "extra category", &input.ref_)?;
        required("input.name", &input.name)?;
        let allowed_values = input.allowed_values.unwrap_or_default();
        Self::check_allowed_values(&allowed_values)?;
        let category = self
            .extra_categories
            .insert(|seq| ExtraCategoryRec {
                seq,
                id: global_id("ExtraCategory", seq),
                ref_: input.ref_,
                name: input.name,
                allowed_values,
            })
            .clone();
        Ok((category, Vec::new()))
    }

    /// `updateExtraCategory`.
    pub fn update_extra_category(&mut self, ref_: &str, input: UpdateExtraCategoryInput) -> Outcome<ExtraCategoryRec> {
        if let Some(name) = &input.name {
            required("input.name", name)?;
        }
        if let Some(values) = &input.allowed_values {
            Self::check_allowed_values(values)?;
        }
        let category = self
            .extra_categories
            .get_mut(ref_)
            .ok_or_else(|| invalid("ref", format!("no extra category with ref '{ref_}'")))?;
        if let Some(name) = input.name {
            category.name = name;
        }
        if let Some(values) = input.allowed_values {
            category.allowed_values = values;
        }
        Ok((category.clone(), Vec::new()))
    }
}
