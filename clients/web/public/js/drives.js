// The scene's hinge and slider drives as sliders: a spring's sets its target position, a
// motor's its target velocity, sent to the gateway as the slider moves (at the world's next
// tick the joint turns to it). A door opens by dragging its slider.
export class DriveControls {
  constructor(container, send) {
    this.container = container;
    this.send = send;
  }

  // Replaces the sliders with one per drive of the scene ({id, joint, target, range, value}).
  show(drives) {
    this.container.replaceChildren();
    this.container.hidden = drives.length === 0;
    for (const drive of drives) this.container.append(this.control(drive));
  }

  control(drive) {
    const unit = drive.target === 'position'
      ? (drive.joint === 'hinge' ? 'rad' : 'm')
      : (drive.joint === 'hinge' ? 'rad/s' : 'm/s');
    const row = document.createElement('label');
    row.className = 'drive';
    const name = document.createElement('span');
    const value = document.createElement('span');
    const input = document.createElement('input');
    Object.assign(input, { type: 'range', min: drive.range[0], max: drive.range[1],
                           step: (drive.range[1] - drive.range[0]) / 100, value: drive.value });
    input.dataset.constraint = drive.id;
    const label = () => { value.textContent = `${Number(input.value).toFixed(2)} ${unit}`; };
    name.textContent = `${drive.id} ${drive.target}`;
    label();
    input.addEventListener('input', () => {
      label();
      this.send({ op: 'drive', constraint: drive.id, [drive.target]: Number(input.value) });
    });
    row.append(name, input, value);
    return row;
  }
}
